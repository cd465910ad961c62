import Foundation
import Keel

/// How an etcd member with an empty data directory first starts: as one of a new cluster's first members, or as a
/// new member of the cluster that already runs, added with `member add` beforehand (etcd's runtime
/// reconfiguration: one member at a time, each started with the cluster's state `existing`).
///
/// etcd reads these settings only while its data directory is empty, so they live in a file of their own (read
/// through a drop-in, beside ``EtcdRole/configuration``): adding a member changes nothing the running members read, and
/// restarts none of them.
struct EtcdBootstrap: Resource {
    let model: ClusterModel
    let host: String

    static let file = EtcdRole.configuration + "-bootstrap"
    static let dataDirectory = "/var/lib/etcd/default"
    /// The drop-in that has etcd's unit read ``file``.
    static let dropIn = (
        path: "/etc/systemd/system/etcd.service.d/keel-bootstrap.conf",
        content: "# Managed by Keel: how a member without data first starts.\n[Service]\nEnvironmentFile=-\(file)\n"
    )

    private static let separator = "--- running members:"

    var description: String { "etcd bootstrap of \(host)" }
    var affectsOtherResources: Bool { true }

    /// The other members, as this host reaches them with its own etcd certificate.
    private var others: Etcdctl {
        Etcdctl(model, members: model.etcdHosts.filter { $0 != host }.map(model.address(of:)))
    }

    /// `data` for a member that has its data; else the bootstrap file, a separator, and the running cluster's
    /// member list as the other members report it (nothing when none answers).
    var probe: String {
        let probe: ShellCommand =
            "if [ -d \(Self.dataDirectory + "/member") ]; then echo data; else cat \(Self.file) 2>/dev/null; "
            + "echo \(Self.separator); if \(others.anyListens); then \(EtcdMemberList.command(others)) 2>/dev/null; fi; fi"
        return probe.text
    }

    func changes(from output: ProbeOutput, on context: HostContext) throws -> [Change] {
        if output.text == "data" { return [] }
        guard let separator = output.text.range(of: Self.separator) else {
            throw ResourceError(
                "the etcd bootstrap probe on \(host) printed no member list: \(output.text.prefix(200))")
        }
        let current = String(output.text[..<separator.lowerBound])
        let listed = output.text[separator.upperBound...].trimmingCharacters(in: .whitespacesAndNewlines)
        guard !listed.isEmpty else {
            // No other member answers: the cluster is new, and this member one of its first.
            return write(bootstrap(state: "new", members: model.etcdHosts), over: current)
        }
        let list = try EtcdMemberList(listed, readFrom: host)
        let members = try runningMembers(list)
        if members.contains(host) {
            // One of a new cluster's first members, not started yet while the others already run (the hosts run
            // this play independently): the "new" file it was given stays right, as etcd's own bootstrap has
            // members start at different times. One that ran before and lost its data starts as existing.
            let started = list.member(at: model.etcdPeerURL(of: host))?.hasStarted ?? false
            if !started && current == bootstrap(state: "new", members: members) { return [] }
            return write(bootstrap(state: "existing", members: members), over: current)
        }
        let add = others("member add \(host) --peer-urls=\(model.etcdPeerURL(of: host))")
        let file = bootstrap(state: "existing", members: members + [host])
        return [
            Change(
                "add \(host) to the running etcd cluster (\(members.joined(separator: ", ")))",
                .shell("\(add) >/dev/null && \(raw: Self.writeCommand(file))"))
        ]
    }

    /// The database hosts of the running cluster's members, in the inventory's order; a member at an address the
    /// inventory does not list is an error, not something to guess around.
    private func runningMembers(_ list: EtcdMemberList) throws -> [String] {
        let byURL = Dictionary(
            uniqueKeysWithValues: model.etcdHosts.map { (model.etcdPeerURL(of: $0), $0) })
        let hosts = try list.members.flatMap(\.peerURLs).map { url in
            guard let host = byURL[url] else {
                throw ResourceError(
                    "etcd has a member at \(url) that is not in [etcd_cluster]: list its host there, or remove it with etcdctl member remove"
                )
            }
            return host
        }
        return model.etcdHosts.filter(hosts.contains)
    }

    private func bootstrap(state: String, members: [String]) -> String {
        let cluster = model.etcdHosts.filter(members.contains).map {
            "\($0)=\(model.etcdPeerURL(of: $0))"
        }
        return """
            # Managed by Keel: how etcd member \(host) first starts (read only while its data directory is empty).
            ETCD_INITIAL_CLUSTER="\(cluster.joined(separator: ","))"
            ETCD_INITIAL_CLUSTER_STATE="\(state)"
            ETCD_INITIAL_CLUSTER_TOKEN="\(model.name)-etcd"

            """
    }

    private func write(_ file: String, over current: String) -> [Change] {
        current == file ? [] : [Change("write \(Self.file)", .shell(.raw(Self.writeCommand(file))))]
    }

    private static func writeCommand(_ content: String) -> String {
        "printf '%s' \(shellQuote(content)) > \(file).tmp && mv \(file).tmp \(file)"
    }
}
