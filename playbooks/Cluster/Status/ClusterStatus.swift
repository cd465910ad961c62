import Foundation
import Keel

/// The cluster as it runs now: Patroni members with role, state, timeline and lag, etcd's health, the VIP's holder
/// and the backups — read over SSH (Patroni's REST API, `etcdctl`, `pgbackrest info`), not from the inventory.
public struct ClusterStatus: Codable, Sendable {
    /// A member as Patroni's `/cluster` lists it, with the state its own Patroni reports when it answers.
    public typealias Member = PatroniMember
    public typealias Lag = PatroniMember.Lag

    public struct EtcdMember: Codable, Sendable {
        public var endpoint: String
        public var health: Bool
    }

    public var cluster: String
    public var readFrom: String
    public var members: [Member]
    /// Patroni is paused (maintenance mode): it neither fails over nor restarts anything.
    public var paused = false
    public var etcd: [EtcdMember]
    /// The cluster VIP and the hosts holding it (exactly one when all is well).
    public var vip: String?
    public var vipHolders: [String] = []
    /// Database hosts whose own Patroni Keel could not reach, with why: what the DCS says of them is stale.
    public var unconfirmed: [String: String] = [:]
    /// Why the cluster is degraded; empty when it is healthy.
    public var problems: [String] = []
    /// The pgBackRest repository, when the cluster has one; nil also when it could not be read (see `backupError`).
    public var backups: BackupStatus?
    public var backupError: String?
    /// The latest restore in the journal of the member read (``RestoreProgress``), in a line.
    public var restore: String?
    /// That restore has not finished.
    public var restoreUnfinished = false
    /// An unfinished `keel upgrade` in the journal of the member read, in a line.
    public var upgradeUnfinished: String?
    /// Hosts a killed `keel update` left out of service (an unfinished update in their journals).
    public var updateUnfinished: Set<String> = []

    /// Reads, through `transport` (a connection to member `host` of `model`), the members as the DCS lists them
    /// and etcd's health, with `host`'s state as its own Patroni reports it now (``ownState(_:)``); `unconfirmed`
    /// names `host` when its own Patroni does not answer.
    static func read(_ model: ClusterModel, host: String, transport: any Transport) async throws -> (
        status: ClusterStatus, ownState: String?
    ) {
        let api = PatroniAPI(model, member: host)
        async let own = transport.run(api.get("/patroni"), timeout: .seconds(5))
        async let health = transport.run(Self.etcdHealth(model, seconds: 3), timeout: .seconds(5))
        async let journal = transport.run(JournalRecord.readAll, timeout: .seconds(5))
        let patroni = try await transport.run(api.get("/cluster"), timeout: .seconds(5))
        guard patroni.succeeded else { throw PatroniAPI.unanswered(host) }
        let (members, paused) = try Member.decode(Data(patroni.stdout))
        let decode = { (output: [UInt8]) in (try? JSONDecoder().decode([EtcdMember].self, from: Data(output))) ?? [] }
        var etcd = decode(try await health.stdout)
        // When no member answered healthy, they are asked once more, with more time, before the cluster counts as
        // without a quorum (a flow refuses it): on a loaded host all of them can miss the first deadline together.
        // When some answered, the answer stands, so that the status comes within seconds with a member cut off —
        // also the etcd leader, whose peers may be electing a new one at that moment.
        if !etcd.contains(where: \.health) {
            etcd = decode(try await transport.run(Self.etcdHealth(model, seconds: 8), timeout: .seconds(12)).stdout)
        }
        var status = ClusterStatus(
            cluster: model.name, readFrom: host, members: members, etcd: etcd, vip: model.vip?.address)
        status.paused = paused
        if let backups = model.backups, backups.repositoryHost == nil {
            do {
                status.backups = try await BackupStatus.read(backups, host: host, transport: transport)
            } catch {
                status.backupError = "\(error)"
            }
        }
        let records = try await journal.stdoutText
        if UpdateJournal.leftUnfinished(records) { status.updateUnfinished = [host] }
        if let (record, plan) = UpgradePlan.recorded(records), record.isUnfinished {
            status.upgradeUnfinished =
                if let kept = plan.kept, record.began(UpgradePlan.awaitingFinish) {
                    "the upgrade to PostgreSQL \(plan.to) awaits its end, \(kept) kept stopped on \(plan.from): "
                        + "keel upgrade --finish clones it on \(plan.to), keel upgrade --rollback goes back to "
                        + "\(plan.from) from it"
                } else {
                    "the upgrade to PostgreSQL \(plan.to) is UNFINISHED (done on \(host): \(record.done)): run keel "
                        + "upgrade --to \(plan.to) again, or keel upgrade --rollback"
                }
        }
        if let progress = RestoreProgress.read(records) {
            status.restore = progress.summary
            status.restoreUnfinished = !progress.isFinished
        }
        let answer = try await own
        guard answer.succeeded, let state = ownState(Data(answer.stdout)) else {
            status.unconfirmed[host] = "its Patroni does not answer"
            return (status, nil)
        }
        return (status, state)
    }

    /// `etcdctl endpoint health` of every member, as JSON, each given `seconds` to answer (2 to connect).
    private static func etcdHealth(_ model: ClusterModel, seconds: Int) -> ShellCommand {
        Etcdctl(model, client: .patroni)("--dial-timeout=2s --command-timeout=\(seconds)s endpoint health -w json")
            + " 2>/dev/null"
    }

    /// A member's state from its own Patroni's `/patroni`, in the words of `/cluster`: "streaming" for a replica
    /// that streams WAL, else Patroni's state ("running", "starting", "stopped"…). The DCS lists what the member
    /// last published, up to a Patroni loop ago: a member whose PostgreSQL has just stopped still shows there as
    /// streaming. Nil when the answer cannot be read.
    static func ownState(_ json: Data) -> String? {
        struct Own: Decodable {
            var state: String
            var replicationState: String?
            enum CodingKeys: String, CodingKey {
                case state
                case replicationState = "replication_state"
            }
        }
        guard let own = try? JSONDecoder().decode(Own.self, from: json) else { return nil }
        return own.state == "running" && own.replicationState == "streaming" ? "streaming" : own.state
    }

    /// Why the cluster is degraded, by what was read; empty when it is healthy.
    func findProblems(_ model: ClusterModel) -> [String] {
        var problems = serviceProblems(model)
        if let vip {
            if vipHolders.isEmpty { problems.append("the VIP \(vip) is on no host") }
            if vipHolders.count > 1 { problems.append("the VIP \(vip) is on \(vipHolders.joined(separator: " and "))") }
        }
        if model.backups != nil {
            if let backupError {
                problems.append("the backups cannot be read (\(backupError))")
            } else if let backups {
                problems += backups.problems
            }
        }
        return problems
    }

    /// What keeps the cluster from serving as it should, or from being handed over safely: no leader, a member
    /// not serving or lagging, no synchronous standby, etcd short of quorum, a pause, an unfinished restore.
    public func serviceProblems(_ model: ClusterModel, countingLag: Bool = true, excusing excused: Set<String> = [])
        -> [String]
    {
        var problems: [String] = []
        let leaders = members.filter { ["leader", "standby_leader"].contains($0.role) }
        if leaders.isEmpty { problems.append("no leader") }
        if paused { problems.append("Patroni is paused (maintenance mode)") }
        for host in model.allHosts where updateUnfinished.contains(host) && !excused.contains(host) {
            problems.append("an update stopped on \(host) before it was back in service (run keel update)")
        }
        for host in model.databaseHosts where !excused.contains(host) {
            if let reason = unconfirmed[host] {
                problems.append("\(host) does not answer (\(reason))")
            } else if let member = members.first(where: { $0.name == host }) {
                let leads = leaders.contains { $0.name == host }
                if member.state != (leads ? "running" : "streaming") {
                    problems.append("\(host) is \(member.state)")
                } else if countingLag, !leads, case .bytes(let behind) = member.lag,
                    behind > model.patroni.maximumLagOnFailover
                {
                    problems.append(
                        "\(host) lags \(behind) bytes behind the leader (more than maximum_lag_on_failover, "
                            + "\(model.patroni.maximumLagOnFailover): it would not be promoted)")
                }
            } else {
                problems.append("\(host) is not a member")
            }
        }
        if model.patroni.synchronousMode, model.databaseHosts.count > 1,
            !members.contains(where: { $0.role == "sync_standby" })
        {
            problems.append("no synchronous standby")
        }
        let healthy = etcd.filter(\.health).count
        if healthy * 2 <= model.etcdHosts.count {
            problems.append("etcd has no quorum (\(healthy) of \(model.etcdHosts.count) members healthy)")
        } else if healthy < model.etcdHosts.count {
            problems.append("etcd: \(model.etcdHosts.count - healthy) member(s) unhealthy")
        }
        if restoreUnfinished, let restore { problems.append(restore) }
        if let upgradeUnfinished { problems.append(upgradeUnfinished) }
        return problems
    }

    /// Refuses a flow on a cluster with ``serviceProblems(_:countingLag:excusing:)`` (lag aside: the flow checks the
    /// members it needs), saying `why` it needs a healthy one.
    func refuseUnlessHealthy(_ model: ClusterModel, excusing excused: Set<String> = [], because why: String)
        throws(FlowError)
    {
        let problems = serviceProblems(model, countingLag: false, excusing: excused)
        guard problems.isEmpty else {
            throw FlowError(
                "the cluster is not healthy: \(problems.joined(separator: "; "))",
                hint: "see keel status; \(why) (nothing was changed)")
        }
    }

    /// The member leading the cluster.
    /// - Throws: ``FlowError`` when none does.
    func leader() throws(FlowError) -> String {
        guard let leader = members.first(where: { $0.role == "leader" })?.name else {
            throw FlowError("the cluster has no leader", hint: "see keel status (nothing was changed)")
        }
        return leader
    }

    /// Refuses while a replica (other than those `excused`) is further behind than `max_replication_lag_bytes`:
    /// a flow that stops members would leave it to catch up, or to be the one that takes over.
    func refuseLagging(_ model: ClusterModel, excusing excused: Set<String> = []) throws(FlowError) {
        let limit = model.limits.maximumReplicationLagBytes
        let lagging = members.compactMap { member -> String? in
            guard member.role != "leader", !excused.contains(member.name), case .bytes(let behind) = member.lag,
                behind > limit
            else { return nil }
            return "\(member.name) is \(behind) bytes behind"
        }
        if !lagging.isEmpty {
            throw FlowError(
                "replication lags: \(lagging.joined(separator: ", ")) (max_replication_lag_bytes: \(limit))",
                hint: "wait until the replicas catch up (keel status), then run again; nothing was changed")
        }
    }

    /// The command that succeeds on the host holding `vip`.
    static func holdsVIP(_ vip: String) -> String { "ip -4 -o addr show | grep -q ' inet \(vip)/'" }

    /// The status as indented JSON (URLs as they are, slashes unescaped).
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// A table for the terminal.
    public var table: String {
        var rows = [["MEMBER", "HOST", "ROLE", "STATE", "TL", "LAG"]]
        for member in members.sorted(by: { $0.name < $1.name }) {
            // What the DCS says of a member Keel could not reach is stale.
            let stale = unconfirmed[member.name] != nil
            rows.append([
                member.name, member.host, member.role, stale ? "\(member.state) (STALE: no answer)" : member.state,
                member.timeline.map(String.init) ?? "", member.lag?.description ?? "",
            ])
        }
        let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        var text = "cluster \(cluster) (read on \(readFrom))\n"
        for row in rows {
            text +=
                zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                + "\n"
        }
        let healthy = etcd.filter(\.health).count
        text += "etcd: \(healthy) of \(etcd.count) members healthy"
        text +=
            etcd.isEmpty
            ? " (no answer)\n"
            : " — " + etcd.map { "\($0.endpoint) \($0.health ? "ok" : "UNHEALTHY")" }.joined(separator: ", ") + "\n"
        if let vip {
            text += "vip: \(vip) held by \(vipHolders.isEmpty ? "NO HOST" : vipHolders.joined(separator: " AND "))\n"
        }
        if let backups { text += backups.summary + "\n" }
        if let backupError { text += "backups: UNKNOWN (\(backupError))\n" }
        if let restore { text += restore + "\n" }
        text += problems.isEmpty ? "healthy\n" : "DEGRADED: \(problems.joined(separator: "; "))\n"
        return text
    }
}
