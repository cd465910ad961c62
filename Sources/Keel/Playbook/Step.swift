/// A resource as a play runs it: with its handlers, tags and retry policy.
///
/// Resources become steps inside a ``StepBuilder`` body; the modifiers below turn a resource into a step.
public struct Step: Sendable {
    public var resource: any Resource
    public var name: String
    public var handlers: [Handler] = []
    public var tags: Set<String> = []
    /// Extra attempts after a failed apply or a probe that did not converge.
    public var retries = 0
    public var retryDelay: Duration = .seconds(2)
    /// Run on the first host of the play only.
    public var runOnce = false

    public init(_ resource: any Resource) {
        self.resource = resource
        self.name = resource.description
    }

    /// Runs `handler` at the end of the play when this step changed something.
    public func onChange(_ handler: Handler...) -> Step { onChange(handler) }
    public func onChange(_ handlers: [Handler]) -> Step { with { $0.handlers += handlers } }
    public func tags(_ names: String...) -> Step { with { $0.tags.formUnion(names) } }
    public func named(_ name: String) -> Step { with { $0.name = name } }
    /// Tries again up to `count` more times, `delay` apart, when applying fails or does not converge.
    public func retries(_ count: Int, delay: Duration = .seconds(2)) -> Step {
        with {
            $0.retries = count; $0.retryDelay = delay
        }
    }
    public func runOnce(_ enabled: Bool = true) -> Step { with { $0.runOnce = enabled } }

    private func with(_ change: (inout Step) -> Void) -> Step {
        var copy = self
        change(&copy)
        return copy
    }
}

extension Resource {
    public func onChange(_ handler: Handler...) -> Step { Step(self).onChange(handler) }
    public func onChange(_ handlers: [Handler]) -> Step { Step(self).onChange(handlers) }
    public func tags(_ names: String...) -> Step { var step = Step(self); step.tags.formUnion(names); return step }
    public func named(_ name: String) -> Step { Step(self).named(name) }
    public func retries(_ count: Int, delay: Duration = .seconds(2)) -> Step { Step(self).retries(count, delay: delay) }
    public func runOnce(_ enabled: Bool = true) -> Step { Step(self).runOnce(enabled) }
}
