/// Builds a playbook's list of plays.
@resultBuilder
public enum PlayBuilder {
    public static func buildExpression(_ play: Play) -> [Play] { [play] }
    /// Plays a component made together: `PgBackRestPlays.setup(model)`.
    public static func buildExpression(_ plays: [Play]) -> [Play] { plays }
    public static func buildBlock(_ parts: [Play]...) -> [Play] { parts.flatMap { $0 } }
    public static func buildOptional(_ plays: [Play]?) -> [Play] { plays ?? [] }
    public static func buildEither(first plays: [Play]) -> [Play] { plays }
    public static func buildEither(second plays: [Play]) -> [Play] { plays }
    public static func buildArray(_ parts: [[Play]]) -> [Play] { parts.flatMap { $0 } }
}
