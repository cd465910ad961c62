/// PostgreSQL parameters a major release removed or renamed. The model sets them for the release it runs: gone
/// from a release that no longer knows them (postgresql_cluster's defaults carried `stats_temp_directory` until
/// PostgreSQL 15), renamed where the release renamed them, so that the same inventory renders a configuration each
/// release starts with, before and after `keel upgrade`.
enum RetiredParameters {
    /// A parameter's end: the first release without it, and what took its place there.
    struct Retirement {
        let release: Int
        /// The new name and its value from the old one's; nil when nothing took its place.
        let successor: (name: String, value: @Sendable (JSONValue) -> JSONValue)?
    }

    /// By name, from the releases' notes.
    static let all: [String: Retirement] = [
        // 13: a size instead of a count of 16 MB segments.
        "wal_keep_segments": Retirement(release: 13, successor: ("wal_keep_size", sizeOfSegments)),
        "operator_precedence_warning": Retirement(release: 14, successor: nil),
        "vacuum_cleanup_index_scale_factor": Retirement(release: 14, successor: nil),
        "stats_temp_directory": Retirement(release: 15, successor: nil),
        "force_parallel_mode": Retirement(release: 16, successor: ("debug_parallel_query", { $0 })),
        "promote_trigger_file": Retirement(release: 16, successor: nil),
        "vacuum_defer_cleanup_age": Retirement(release: 16, successor: nil),
        "old_snapshot_threshold": Retirement(release: 17, successor: nil),
        "db_user_namespace": Retirement(release: 17, successor: nil),
        "trace_recovery_messages": Retirement(release: 17, successor: nil),
    ]

    /// A count of 16 MB WAL segments as a size (`64` → `1024MB`); what is not a count is left as it is.
    @Sendable static func sizeOfSegments(_ value: JSONValue) -> JSONValue {
        switch value {
        case .integer(let count): .string("\(count * 16)MB")
        case .string(let text): Int(text).map { .string("\($0 * 16)MB") } ?? value
        default: value
        }
    }

    /// `parameters` as release `release` knows them: retired ones dropped, or renamed unless the new name is set
    /// too (which then wins).
    static func on(_ release: Int, _ parameters: [ClusterModel.Parameter]) -> [ClusterModel.Parameter] {
        let named = Set(parameters.map(\.option))
        return parameters.compactMap { parameter in
            guard let retirement = all[parameter.option], release >= retirement.release else { return parameter }
            guard let successor = retirement.successor, !named.contains(successor.name) else { return nil }
            return ClusterModel.Parameter(option: successor.name, value: successor.value(parameter.value))
        }
    }
}
