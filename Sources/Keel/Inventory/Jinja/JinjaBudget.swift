/// The bounds on evaluating Jinja from variables, so that a small hostile file is refused with a message instead
/// of overflowing the stack, running for hours or asking for gigabytes: how deep an expression or `{% if %}` may
/// nest, how many tokens one expression may have, how long a text it may build, and how deep and how many steps
/// one variable's evaluation (with every variable it refers to) may take.
final class JinjaBudget {
    /// How deeply an expression or `{% if %}` may nest as written.
    static let maxDepth = 64
    /// How deeply evaluation may go, through the variables it refers to.
    static let maxEvaluationDepth = 256
    static let maxTokens = 1_000
    static let maxLength = 1 << 20
    static let maxSteps = 2_000_000

    private var steps = 0
    private var depth = 0

    init() {}

    /// Enters the evaluation of one expression: counts a step and a level, throwing once either is spent.
    func enter() throws(JinjaError) {
        steps += 1
        guard steps <= Self.maxSteps else {
            throw JinjaError("evaluating it takes more than \(Self.maxSteps) steps")
        }
        depth += 1
        guard depth <= Self.maxEvaluationDepth else {
            depth -= 1
            throw JinjaError("evaluating it goes more than \(Self.maxEvaluationDepth) levels deep")
        }
    }

    /// Leaves the expression ``enter()`` entered.
    func leave() { depth -= 1 }

    /// Refuses a depth beyond ``maxDepth``.
    static func check(depth: Int) throws(JinjaError) {
        guard depth <= maxDepth else { throw JinjaError("it nests more than \(maxDepth) levels deep") }
    }

    /// Refuses a text that would be longer than ``maxLength`` bytes, before it is built.
    static func check(length: Int) throws(JinjaError) {
        guard length <= maxLength else {
            throw JinjaError("it builds a text of \(length) bytes, more than \(maxLength)")
        }
    }
}
