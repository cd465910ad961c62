/// Builds a flat list of steps from resources, steps, roles, `if` and `for`.
///
/// ```swift
/// Play("web", on: "webservers") { host in
///     Package("nginx-light")
///     if host.isMember(of: "tls") { File("/etc/nginx/tls.conf", content: tlsConfig) }
///     for site in sites { Template("site.conf", to: "/etc/nginx/sites-enabled/\(site)") }
/// }
/// ```
@resultBuilder
public enum StepBuilder {
    /// A resource becomes a step with no modifiers: `Package("nginx-light")`.
    public static func buildExpression(_ resource: any Resource) -> [Step] { [Step(resource)] }
    /// A step with modifiers: `File(…).onChange(.restart("nginx"))`.
    public static func buildExpression(_ step: Step) -> [Step] { [step] }
    /// Steps computed elsewhere, such as a role's: `try Common(host: host).steps`.
    public static func buildExpression(_ steps: [Step]) -> [Step] { steps }
    public static func buildBlock(_ parts: [Step]...) -> [Step] { parts.flatMap { $0 } }
    /// `if` without `else`.
    public static func buildOptional(_ steps: [Step]?) -> [Step] { steps ?? [] }
    /// `if`/`else` and `switch`, first branch.
    public static func buildEither(first steps: [Step]) -> [Step] { steps }
    /// `if`/`else` and `switch`, second branch.
    public static func buildEither(second steps: [Step]) -> [Step] { steps }
    /// `for … in …`.
    public static func buildArray(_ parts: [[Step]]) -> [Step] { parts.flatMap { $0 } }
    public static func buildLimitedAvailability(_ steps: [Step]) -> [Step] { steps }
}

/// A reusable group of steps for one host, written as a plain Swift type; planning it may fail (a value the host's
/// facts cannot satisfy), so its steps are read with `try`.
///
/// ```swift
/// struct Common: Role {
///     let host: HostContext
///     var steps: [Step] {
///         Package("chrony")
///         Service("chrony", state: .started, enabled: true)
///     }
/// }
///
/// Play("base", on: "all") { host in try Common(host: host).steps }
/// ```
public protocol Role: Sendable {
    @StepBuilder var steps: [Step] { get throws }
}
