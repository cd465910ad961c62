/// Patroni release numbers, and the releases Keel holds safe with etcd's v3 API.
enum PatroniRelease {
    /// Before 3.0.3, an old leader returning from a partition could overwrite the new leader's key and the
    /// interim leader's acknowledged writes were abandoned.
    static let firstSafeWithEtcd3 = [3, 0, 3]
    /// The oldest release Keel installs: it carries the later etcd3 fixes too.
    static let oldestInstalled = [4, 0, 6]

    /// `4.1.5` → `[4, 1, 5]`; nil when it is not a release number.
    static func parse(_ version: String) -> [Int]? {
        let parts = version.split(separator: ".").map { Int($0) }
        guard !parts.isEmpty, parts.allSatisfy({ $0 != nil }) else { return nil }
        return parts.map { $0! }
    }

    /// Whether `version` is older than `release` (a version that does not parse counts as older).
    static func isOlder(_ version: String, than release: [Int]) -> Bool {
        guard let parsed = parse(version) else { return true }
        return parsed.lexicographicallyPrecedes(release)
    }

    static func text(_ release: [Int]) -> String { release.map(String.init).joined(separator: ".") }
}
