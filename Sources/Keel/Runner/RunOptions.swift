/// How a run behaves, from the command line.
public struct RunOptions: Sendable {
    /// Plan only: probe, compute changes, print them; change nothing.
    public var check = false
    /// Show unified diffs of file contents (always shown under `check`).
    public var diff = false
    /// Only steps with one of these tags (empty: all).
    public var tags: Set<String> = []
    public var skipTags: Set<String> = []
    /// `--limit`: only these hosts; nil for all.
    public var limit: String?
    public var forks = 10
    /// Set when the run must stop between steps.
    public var stop: StopRequest?
    /// How long a step applies its changes before the run says it still runs (``RunEvent/stepRunning``).
    public var slowStep: Duration = .seconds(5)
    /// Where the hosts' facts are kept from one run to the next (``FactsMemory``); nil: nowhere.
    public var factsMemory: FactsMemory?

    public init(
        check: Bool = false, diff: Bool = false, tags: Set<String> = [], skipTags: Set<String> = [],
        limit: String? = nil, forks: Int = 10, stop: StopRequest? = nil
    ) {
        self.check = check
        self.diff = diff
        self.tags = tags
        self.skipTags = skipTags
        self.limit = limit
        self.forks = forks
        self.stop = stop
    }

    var stopRequested: Bool { stop?.isRequested ?? false }

    /// Whether a step (with the tags of its play) is selected by `--tags` and `--skip-tags`. As in Ansible, steps
    /// tagged `always` run whatever `--tags` says, unless `always` is skipped.
    func selects(_ tags: Set<String>) -> Bool {
        if !skipTags.isDisjoint(with: tags) { return false }
        return self.tags.isEmpty || !self.tags.isDisjoint(with: tags) || tags.contains("always")
    }
}
