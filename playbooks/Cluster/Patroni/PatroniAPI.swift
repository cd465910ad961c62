import Keel

/// Shell commands against one member's Patroni REST API (``ClusterPorts/patroniAPI``), run as root on a database host: over TLS,
/// the member's certificate verified against the cluster's CA and the host's API client certificate presented,
/// when the cluster has one.
struct PatroniAPI {
    /// The member's inventory name, as Patroni names it.
    let member: String
    let url: String
    /// curl's options naming the CA and presenting the host's client certificate when it has one, or nothing.
    private let authority: ShellCommand
    private let tls: Bool

    /// Where database hosts keep the credentials of the unsafe endpoints, for root's `curl -K`: a root-only
    /// directory, since a curl config file can name URLs and files to write (no other account may replace it).
    static let credentialsDirectory = "/etc/keel"
    static let credentialsFile = credentialsDirectory + "/patroni-api.curlrc"
    /// Where Keel kept them before, in a directory `postgres` once owned.
    static let formerCredentialsFile = "/etc/patroni/api.curlrc"

    init(_ model: ClusterModel, member: String) {
        self.member = member
        url = "\(model.tls == nil ? "http" : "https")://\(model.address(of: member)):\(ClusterPorts.patroniAPI)"
        tls = model.tls != nil
        authority = tls ? "--cacert \(TLSFiles.patroni.authority) \(Self.clientCertificate)" : ""
    }

    /// curl's options presenting the host's API client certificate, when the host has one: a member an earlier Keel
    /// deployed has none until its next deploy, and its API asks for none until then. The paths are Keel's own.
    private static let clientCertificate: ShellCommand =
        "$([ -r \(TLSFiles.patroniAPIClient.key) ] && echo \(presented)) "

    /// curl's options presenting the host's API client certificate.
    private static let presented: ShellCommand =
        "--cert \(TLSFiles.patroniAPIClient.certificate) --key \(TLSFiles.patroniAPIClient.key)"

    /// Prints the JSON at `path`; fails when the member does not answer.
    func get(_ path: String) -> ShellCommand { "curl -sf -m 5 \(authority)\(url + path)" }

    /// Prints the JSON at `path` from the first member of `model` that answers; prints nothing when none does.
    /// Each answer is taken whole or not at all: a member cut off mid-answer (its timeout) adds nothing to the next
    /// member's.
    static func fromAnyMember(_ model: ClusterModel, _ path: String) -> ShellCommand {
        let reads = model.databaseHosts.map { member -> ShellCommand in
            "answer=$(\(PatroniAPI(model, member: member).get(path)))"
        }
        return
            "{ \((reads + ["answer="]).joined(separator: " || ")); [ -z \"$answer\" ] || printf '%s\\n' \"$answer\"; }"
    }

    /// Sends the JSON `body` to `path` with the credentials and fails, printing Patroni's answer, unless it accepts
    /// (2xx): a refused switchover says why ("candidate name does not match with sync_standby", …).
    func send(_ method: String, _ path: String, json body: String, timeout: Int) -> ShellCommand {
        "{ answer=$(mktemp) && code=$(curl -s -m \(timeout) \(authority)-K \(Self.credentialsFile) -X \(method) "
            + "-H 'Content-Type: application/json' --data-binary \(body) -o \"$answer\" "
            + "-w '%{http_code}' \(url + path)); said=$(head -c 500 \"$answer\"); rm -f \"$answer\"; "
            + "case \"$code\" in 2??) ;; *) printf 'Patroni answered %s: %s\\n' \"$code\" \"$said\" >&2; false ;; esac; }"
    }

    /// The error for a member whose REST API gave no answer Keel could read.
    static func unanswered(_ host: String) -> ResourceError {
        ResourceError(
            "Patroni's REST API does not answer on \(host):\(ClusterPorts.patroniAPI); is the member running?")
    }

    /// Succeeds when the JSON at `path` contains one of `fragments` (`"role": "leader"`).
    func shows(_ path: String, _ fragments: String...) -> ShellCommand {
        get(path) + " | grep -q" + fragments.map { fragment -> ShellCommand in " -e \(fragment)" }.joined(separator: "")
    }

    /// Succeeds when the member's Patroni flags that its PostgreSQL waits for a restart.
    var flagsPendingRestart: ShellCommand { shows("/patroni", #""pending_restart": true"#) }

    /// Succeeds when the member's PostgreSQL accepts writes: out of recovery, as Patroni's own query of it finds
    /// (`/primary` answers 200 as soon as Patroni asks for the promotion, while PostgreSQL may still be ending its
    /// recovery, read-only, for a second or two).
    var acceptsWrites: ShellCommand { shows("/patroni", #""xlog": {"location""#) }

    /// Succeeds when the member is the primary.
    var isPrimary: ShellCommand { "curl -sf -o /dev/null -m 5 \(authority)\(url + "/primary")" }

    /// ``isPrimary`` as systemd runs it itself, with no shell (a unit's `ExecCondition`): the client certificate
    /// named outright, which the deploy that writes the unit has put on the host.
    var isPrimaryCondition: ShellCommand {
        let options: ShellCommand = tls ? "--cacert \(TLSFiles.patroni.authority) \(Self.presented) " : ""
        return "/usr/bin/curl -sf -o /dev/null -m 5 \(options)\(url + "/primary")"
    }

    /// Waits up to 300 s for the member to be in service (see `inService`); fails with a message otherwise.
    var waitInService: ShellCommand {
        Poll(until: inService, seconds: 300, onTimeout: .fail("the member is not in service after 300 s")).command
    }

    /// Succeeds when the member streams on the leader's timeline no further behind than a replica Patroni would
    /// still promote (`maximum_lag_on_failover`): the cluster as its members list it, read from this member.
    func caughtUp(_ model: ClusterModel) -> ShellCommand {
        let check = """
            import json, sys
            members = json.load(sys.stdin)["members"]
            me = [m for m in members if m["name"] == sys.argv[1]][0]
            leader = [m for m in members if m["role"] in ("leader", "standby_leader")][0]
            sys.exit(0 if me["state"] == "streaming" and me.get("timeline") == leader.get("timeline")
                     and isinstance(me.get("lag"), int) and me["lag"] <= int(sys.argv[2]) else 1)
            """
        return get("/cluster") + " | python3 -c \(check) \(member) \(model.patroni.maximumLagOnFailover)"
    }

    /// Succeeds when the member runs as the primary, out of recovery (``acceptsWrites``), or as a replica
    /// streaming WAL from it: one call. Not `"role": "primary"` in `/patroni`: a member whose PostgreSQL is stopped,
    /// starting or being rewound names there the role its data directory last had, so a former primary rejoining
    /// as a replica would pass before it serves.
    var inService: ShellCommand {
        shows("/patroni", #""replication_state": "streaming""#, #""xlog": {"location""#)
    }
}
