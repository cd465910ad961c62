import Foundation
import Testing

@testable import Keel
@testable import Playbooks

/// The rolling update's plan: which hosts, in which order, and what stops it before anything changes.
@Suite("update: the hosts planned in order, refused on an unhealthy cluster, packages pinned to the plan")
struct UpdateFlowTests {
    let server = PackageUpdate(name: "postgresql-15", installed: "15.18-0+deb12u1", candidate: "15.20-0+deb12u1")
    let haproxy = PackageUpdate(name: "haproxy", installed: "2.6.12-1+deb12u3", candidate: "2.6.12-1+deb12u4")

    func host(_ name: String, _ updates: [PackageUpdate], unfinished: Bool = false) -> UpdateSurvey.Host {
        UpdateSurvey.Host(name: name, updates: updates, unfinished: unfinished)
    }

    @Test("apt's answer read: one update per line, nothing else")
    func parse() {
        let text =
            "postgresql-15\t15.18-0+deb12u1\t15.20-0+deb12u1\nnoise\nhaproxy\t2.6.12-1+deb12u3\t2.6.12-1+deb12u4\n"
        #expect(PackageUpdate.parse(text) == [server, haproxy])
        #expect(PackageUpdate.parse("").isEmpty)
    }

    @Test(
        "a host left out of service first, the replicas, a switchover, the leader, then the balancers, the VIP's last")
    func order() throws {
        let (model, _) = try ClusterModelTests().load()
        var status = try SwitchoverFlowTests().status(SwitchoverFlowTests().healthy)
        status.vipHolders = ["10.213.0.14"]
        let flow = try UpdateFlow(
            hosts: [
                host("10.213.0.14", [haproxy]), host("10.213.0.11", [server]), host("10.213.0.12", [server]),
                host("10.213.0.13", [], unfinished: true), host("10.213.0.15", [haproxy]),
            ], status: status, model: model)
        #expect(
            flow.playbook(model, carrying: CarriedSoftware()).plays.map { "\($0.name) on \($0.hosts)" } == [
                "update 10.213.0.13 on 10.213.0.13", "update 10.213.0.12 on 10.213.0.12",
                "switchover checks on 10.213.0.11", "pgbouncer paused on 10.213.0.14,10.213.0.15",
                "switchover on 10.213.0.11", "pgbouncer resumed on 10.213.0.14,10.213.0.15",
                "former leader streaming on 10.213.0.11", "update 10.213.0.11 on 10.213.0.11",
                "update 10.213.0.15 on 10.213.0.15",
                "update 10.213.0.14 on 10.213.0.14",
            ])
        let plan = flow.plan(model) ?? ""
        #expect(
            plan.contains("  10.213.0.13: bring it back into service (an earlier update stopped there)\n"), "\(plan)")
        #expect(plan.contains("  10.213.0.12: postgresql-15 15.18-0+deb12u1 → 15.20-0+deb12u1\n"), "\(plan)")
        #expect(
            plan.contains("hand the leader's role from 10.213.0.11 to an updated replica\n    10.213.0.11: "), "\(plan)"
        )
    }

    @Test("every package current: nothing to do, no play")
    func current() throws {
        let (model, _) = try ClusterModelTests().load()
        let flow = try UpdateFlow(
            hosts: [], status: try SwitchoverFlowTests().status(SwitchoverFlowTests().healthy), model: model)
        #expect(flow.plan(model) == "update: every package of cluster \(model.name) is current, nothing to do\n")
        #expect(flow.playbook(model, carrying: CarriedSoftware()).plays.isEmpty)
    }

    @Test("a stopped member refuses the update, unless an earlier update stopped it (then this one resumes)")
    func health() throws {
        let (model, _) = try ClusterModelTests().load()
        let stopped = try SwitchoverFlowTests().status([
            ("10.213.0.12", "sync_standby", "streaming", 3, 0), ("10.213.0.13", "replica", "stopped", 3, 0),
        ])
        #expect {
            try UpdateFlow(hosts: [host("10.213.0.12", [server])], status: stopped, model: model)
        } throws: { "\($0)".contains("the cluster is not healthy: 10.213.0.13 is stopped") }
        let resumed = try UpdateFlow(
            hosts: [host("10.213.0.13", [server], unfinished: true)], status: stopped, model: model)
        #expect(resumed.plan(model)?.contains("10.213.0.13: postgresql-15") == true)
        // Back in service, but the mark says the update did not finish there: a switchover waits for it.
        var marked = try SwitchoverFlowTests().status(SwitchoverFlowTests().healthy)
        marked.updateUnfinished = ["10.213.0.13"]
        #expect {
            try SwitchoverFlow(status: marked, model: model, to: nil)
        } throws: {
            "\($0)".contains("an update stopped on 10.213.0.13 before it was back in service (run keel update)")
        }
        #expect(throws: Never.self) {
            try UpdateFlow(hosts: [host("10.213.0.13", [], unfinished: true)], status: marked, model: model)
        }
    }

    @Test("the planned versions installed, the services stopped first; nothing when they are in place")
    func packages() throws {
        let (_, directory) = try ClusterModelTests().load()
        let context = HostContext(
            name: "10.213.0.12", inventory: try Inventory.load(path: directory + "/hosts.ini"), facts: Facts())
        let resource = PackagesUpdated(updates: [server], stopping: "systemctl stop patroni")
        let due = try resource.changes(from: ProbeOutput(text: "postgresql-15=15.18-0+deb12u1\n"), on: context)
        #expect(due.map(\.summary) == ["postgresql-15 15.18-0+deb12u1 → 15.20-0+deb12u1"])
        let actions = due.first?.actions.map(\.description) ?? []
        #expect(actions.first == "systemctl stop patroni", "\(actions)")
        // The install runs to its end whatever becomes of the run (a detached job).
        guard case .detached(let command, _) = due.first?.actions.last?.kind else {
            Issue.record("the install is not detached: \(actions)")
            return
        }
        #expect(command.contains("--only-upgrade") && command.hasSuffix(" postgresql-15=15.20-0+deb12u1"), "\(command)")
        #expect(try resource.changes(from: ProbeOutput(text: "postgresql-15=15.20-0+deb12u1\n"), on: context).isEmpty)
    }

    @Test("--only names what each part updates on a host")
    func components() throws {
        let (model, _) = try ClusterModelTests().load()
        #expect(UpdatedComponent.balancers.packages(on: "10.213.0.14", model) == ["haproxy", "socat", "keepalived"])
        #expect(UpdatedComponent.balancers.packages(on: "10.213.0.12", model).isEmpty)
        let postgres = UpdatedComponent.postgres.packages(on: "10.213.0.12", model)
        #expect(postgres.first == "postgresql-15" && postgres.suffix(2) == ["postgresql-client-15", "libpq5"])
    }

    @Test("unattended-upgrades is kept away from each host's cluster packages, and from nothing else")
    func held() throws {
        let (model, _) = try ClusterModelTests().load()
        func hold(_ host: String) -> String {
            let steps = UnattendedUpgradesHold(host: host, model: model).steps
            guard case .text(let text) = (steps.first?.resource as? File)?.contents else { return "" }
            return text
        }
        let member = hold("10.213.0.12")
        #expect(member.contains("    \"^postgresql-15$\";\n") && member.contains("    \"^libpq5$\";\n"), "\(member)")
        #expect(member.contains("\"^etcd-server$\"") && !member.contains("haproxy"), "\(member)")
        #expect(hold("10.213.0.14").contains("\"^haproxy$\""))
        #expect(hold("10.213.0.99").isEmpty, "a host outside the cluster")
    }

    @Test("pgBackRest changes on every host at once, first; refused when the hosts would end on different versions")
    func backups() throws {
        let model = try ClusterModelTests().withRepository()
        let status = try SwitchoverFlowTests().status(SwitchoverFlowTests().healthy)
        let carrying = model.allHosts.filter { !UpdatedComponent.pgbackrest.packages(on: $0, model).isEmpty }
        try #require(carrying.count == 4, "three members and the repository host: \(carrying)")
        let backup = PackageUpdate(name: "pgbackrest", installed: "2.45-1", candidate: "2.46-1")
        let flow = try UpdateFlow(
            hosts: carrying.map { host($0, $0 == "10.213.0.12" ? [server, backup] : [backup]) }, status: status,
            model: model)
        #expect(
            flow.playbook(model, carrying: CarriedSoftware()).plays.map(\.name) == [
                "pgbackrest updated", "update 10.213.0.12",
            ])
        #expect(flow.plan(model)?.contains("(one version on every host): pgbackrest → 2.46-1\n  then one host") == true)
        #expect {
            try UpdateFlow(hosts: carrying.dropLast().map { host($0, [backup]) }, status: status, model: model)
        } throws: { "\($0)".contains("pgBackRest would end on different versions: ") && "\($0)".contains(" unchanged") }
    }

    @Test(
        "a member is drained, stopped after a CHECKPOINT, updated, back in service and undrained; a balancer gives the VIP up and takes it back once HAProxy routes"
    )
    func hostSteps() throws {
        let (model, directory) = try ClusterModelTests().load()
        let inventory = try Inventory.load(path: directory + "/hosts.ini")
        func steps(_ name: String, _ updates: [PackageUpdate]) throws -> [Step] {
            let play = UpdatePlays.updated(model, host: host(name, updates), run: "update 1")
            var facts = Facts()
            facts.interfaces = ["eth0": [name + "/24"]]
            return try play.body(HostContext(name: name, inventory: inventory, facts: facts))
        }
        let member = try steps("10.213.0.12", [server]).map(\.name)
        #expect(
            member == [
                "wait for every etcd member healthy", "update begun (/var/lib/keel/journal/update)",
                "template /etc/patroni/patroni.yml",
                "flush handlers", "wait for readers and the synchronous role moved away",
                "packages updated: postgresql-15", "service etcd started and enabled",
                "wait for every etcd member healthy",
                "service patroni started and enabled", "wait for in service (primary, or streaming)",
                "wait for streaming, caught up",
                "template /etc/patroni/patroni.yml", "flush handlers", "service pgbouncer started and enabled",
                "update: recorded as back in service",
            ], "\(member)")
        let update = try #require(
            try steps("10.213.0.12", [server]).compactMap { $0.resource as? PackagesUpdated }.first)
        let stopping = update.stopping ?? ""
        #expect(
            stopping.hasPrefix("if pg_isready -q -h /var/run/postgresql -p 5432; then printf '%s\\n' CHECKPOINT | ")
                && stopping.hasSuffix(" >/dev/null; fi && systemctl stop patroni"), "\(stopping)")
        let balancer = try steps("10.213.0.14", [haproxy]).map(\.name)
        #expect(
            balancer == [
                "update begun (/var/lib/keel/journal/update)", "packages updated: haproxy",
                "service haproxy started and enabled", "HAProxy running its installed binary",
                "wait for HAProxy's master to have a server up", "wait for HAProxy's replicas to have a server up",
                "service pgbouncer started and enabled", "service keepalived started and enabled",
                "update: recorded as back in service",
            ], "\(balancer)")
        // A new HAProxy alone is reloaded where it runs, the VIP staying; a new keepalived moves the VIP away first.
        let balancerUpdate = try #require(
            try steps("10.213.0.14", [haproxy]).compactMap { $0.resource as? PackagesUpdated }.first)
        #expect(balancerUpdate.stopping?.hasPrefix("{ echo 'show servers state' | socat stdio") == true)
        let keepalived = PackageUpdate(name: "keepalived", installed: "1:2.2.7-1", candidate: "1:2.2.7-1+deb12u1")
        let vipMoved = try #require(
            try steps("10.213.0.14", [haproxy, keepalived]).compactMap { $0.resource as? PackagesUpdated }.first)
        #expect(vipMoved.stopping == "systemctl stop keepalived")
    }

    @Test(
        "an update that does not touch what members serve (etcd here) neither drains, stops Patroni nor switches over")
    func etcdOnly() throws {
        let (model, directory) = try ClusterModelTests().load()
        let etcd = PackageUpdate(name: "etcd-server", installed: "3.4.23-4+b4", candidate: "3.4.23-4+b5")
        let flow = try UpdateFlow(
            hosts: [host("10.213.0.11", [etcd]), host("10.213.0.12", [etcd])],
            status: try SwitchoverFlowTests().status(SwitchoverFlowTests().healthy), model: model)
        #expect(
            flow.playbook(model, carrying: CarriedSoftware()).plays.map(\.name) == [
                "update 10.213.0.12", "update 10.213.0.11",
            ])
        #expect(flow.plan(model)?.contains("hand the leader's role") == false)
        let play = UpdatePlays.updated(model, host: host("10.213.0.11", [etcd]), run: "update 1")
        var facts = Facts()
        facts.interfaces = ["eth0": ["10.213.0.11/24"]]
        let steps = try play.body(
            HostContext(
                name: "10.213.0.11", inventory: try Inventory.load(path: directory + "/hosts.ini"), facts: facts))
        #expect(!steps.map(\.name).contains("wait for readers and the synchronous role moved away"))
        #expect(steps.compactMap { $0.resource as? PackagesUpdated }.first?.stopping == nil)
    }

    @Test("--only chooses the components; else postgresql_cluster's target=postgres; patroni and system are refused")
    func chosenComponents() throws {
        func target(_ value: String) -> Variable { Variable(.string(value), at: SourceLocation(file: "-e", line: 1)) }
        #expect(try UpdatedComponent.chosen(only: [], target: nil) == UpdatedComponent.allCases)
        #expect(try UpdatedComponent.chosen(only: [.etcd], target: target("postgres")) == [.etcd])
        #expect(try UpdatedComponent.chosen(only: [], target: target("postgres")) == [.postgres])
        for (value, message) in [
            ("patroni", "keeps Patroni at patroni_version"), ("system", "not the whole system"),
            ("kernel", "is not one of postgres, patroni, system"),
        ] {
            #expect {
                try UpdatedComponent.chosen(only: [], target: target(value))
            } throws: {
                "\($0)".contains("target=\(value) (-e:1)") && "\($0)".contains(message)
            }
        }
    }

    @Test("a replica further behind than max_replication_lag_bytes (10 MiB unless set) refuses the update")
    func lagging() throws {
        let (model, _) = try ClusterModelTests().load()
        let behind = try SwitchoverFlowTests().status([
            ("10.213.0.12", "sync_standby", "streaming", 3, 0), ("10.213.0.13", "replica", "streaming", 3, 20 << 20),
        ])
        #expect {
            try UpdateFlow(hosts: [host("10.213.0.12", [server])], status: behind, model: model)
        } throws: {
            "\($0)".contains("10.213.0.13 is 20971520 bytes behind (max_replication_lag_bytes: 10485760)")
        }
        let (patient, _) = try ClusterModelTests().load(
            vars: ClusterModelTests.vars + "\nmax_replication_lag_bytes: 30000000\n")
        #expect(throws: Never.self) {
            try UpdateFlow(hosts: [host("10.213.0.12", [server])], status: behind, model: patient)
        }
    }
}
