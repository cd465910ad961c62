import Keel

/// How long the flows wait, and how far behind a replica may be, before they stop.
public struct FlowLimits: Sendable {
    /// How long a step that copies the whole database may take: a replica's clone, the first full backup
    /// (`keel_data_copy_timeout`, seconds).
    public var dataCopyTimeout: Duration = .seconds(21_600)
    /// How long a client's transaction may have run on the leader when a planned switchover would end it
    /// (`max_transaction_sec`, seconds): the hand-over waits for older ones to finish first.
    public var maximumTransactionSeconds = 15
    /// How far behind the leader a replica may be when a rolling update begins (`max_replication_lag_bytes`).
    public var maximumReplicationLagBytes = 10_485_760

    /// The limits the inventory sets, within sane bounds.
    static func read(_ reader: VariableReader) throws(InventoryError) -> FlowLimits {
        var limits = FlowLimits()
        if let seconds = try reader.int(.dataCopyTimeout, in: 60...604_800) {
            limits.dataCopyTimeout = .seconds(seconds)
        }
        limits.maximumTransactionSeconds =
            try reader.int(.maximumTransactionSeconds, in: 1...86_400) ?? limits.maximumTransactionSeconds
        limits.maximumReplicationLagBytes =
            try reader.int(.maximumReplicationLagBytes, in: 0...(1 << 50)) ?? limits.maximumReplicationLagBytes
        return limits
    }
}
