import Foundation
import Keel
import Testing

@testable import Playbooks

@Suite("remove-cluster: the plan names what goes and what stays; backups and a shared etcd are kept unless asked")
struct RemoveClusterFlowTests {
    private func model() throws -> ClusterModel { try ClusterModelTests().withRepository() }

    private func context() throws -> HostContext {
        let (_, directory) = try ClusterModelTests().load()
        return HostContext(
            name: "10.213.0.11", inventory: try Inventory.load(path: directory + "/hosts.ini"), facts: Facts())
    }

    private func survey(otherClusters: [String] = [], removeEtcd: Bool = false) -> ClusterRemovalSurvey {
        var survey = ClusterRemovalSurvey()
        survey.paths = ["10.213.0.11": [.init(path: "/var/lib/postgresql/16/main", size: "41M")]]
        survey.systemIDs = ["10.213.0.11": "7311985217391697410"]
        survey.backups = BackupStatus(
            repository: "10.213.0.16", stanza: "pg-lab", status: "ok",
            backups: [.init(label: "F1", type: "full", finished: 1000, size: 1)])
        survey.archiveSize = "96M"
        survey.otherClusters = otherClusters
        survey.removesEtcd = removeEtcd || otherClusters.isEmpty
        return survey
    }

    @Test("the plan: sizes, the etcd prefix, backups kept with their count and WAL, etcd kept for a neighbour")
    func plan() throws {
        let model = try model()
        let kept = RemoveClusterFlow(
            survey: survey(otherClusters: ["pg-lab2"]), deleteBackups: false, purgePackages: false)
        let text = (kept.plan(model) ?? "")
        #expect(text.contains("    DELETE /var/lib/postgresql/16/main (41M)"), "\(text)")
        #expect(text.contains("    its PostgreSQL's system identifier: 7311985217391697410\n"), "\(text)")
        #expect(text.contains("delete the cluster's keys (prefix /service/pg-lab/)"), "\(text)")
        #expect(text.contains("etcd stays: it holds the keys of pg-lab2"), "\(text)")
        #expect(
            text.contains(
                "backups: KEPT, stanza pg-lab on 10.213.0.16 in /var/lib/pgbackrest: 1 backup(s), 96M of WAL"),
            "\(text)")
        #expect(!text.contains("stop and disable patroni and PostgreSQL, etcd"), "etcd is not stopped: \(text)")
        let all = RemoveClusterFlow(survey: survey(), deleteBackups: true, purgePackages: true)
        #expect((all.plan(model) ?? "").contains("backups: DELETE stanza pg-lab"))
        #expect((all.plan(model) ?? "").contains("etcd itself is removed: no other cluster keeps keys in it"))
        let forced = RemoveClusterFlow(
            survey: survey(otherClusters: ["pg-lab2"], removeEtcd: true), deleteBackups: false, purgePackages: false)
        #expect((forced.plan(model) ?? "").contains("etcd itself is removed (--remove-etcd), with the keys of pg-lab2"))
        var begun = survey()
        begun.etcdRemovalBegun = true
        #expect(
            (RemoveClusterFlow(survey: begun, deleteBackups: false, purgePackages: false).plan(model) ?? "")
                .contains("etcd itself is removed: an earlier run of this removal began removing it"))
        #expect(all.packages(on: "10.213.0.16", model) == ["pgbackrest"])
        #expect(
            all.packages(on: "10.213.0.11", model) == [
                "postgresql-15", "postgresql-client-15", "pgbouncer", "etcd-server", "etcd-client", "pgbackrest",
            ])
        #expect(all.packages(on: "10.213.0.14", model) == ["haproxy", "socat", "keepalived", "pgbouncer"])
        #expect(kept.packages(on: "10.213.0.16", model).isEmpty, "pgBackRest stays where backups are kept")
    }

    @Test("the plays: the VIP released first, the data last; a kept stanza is marked, a deleted one goes by pgBackRest")
    func plays() throws {
        let model = try model()
        let kept = RemoveClusterFlow(
            survey: survey(otherClusters: ["pg-lab2"]), deleteBackups: false, purgePackages: false)
        #expect(
            kept.playbook(model, carrying: CarriedSoftware()).plays.map(\.name) == [
                "balancers stopped", "patroni stopped", "backup timers stopped", "backups kept",
                "cluster keys deleted from etcd", "exporters removed", "files removed",
            ])
        let all = RemoveClusterFlow(survey: survey(), deleteBackups: true, purgePackages: true)
        #expect(
            all.playbook(model, carrying: CarriedSoftware()).plays.map(\.name) == [
                "balancers stopped", "patroni stopped", "backup timers stopped", "backups deleted",
                "cluster keys deleted from etcd", "etcd marked for removal", "etcd stopped", "exporters removed",
                "files removed", "packages purged",
            ])
        #expect(
            ClusterRemovalSurvey.paths(on: "10.213.0.11", model, removingEtcd: false, deletingBackups: false)
                .contains("/var/lib/etcd/default") == false)
        #expect(
            ClusterRemovalSurvey.paths(on: "10.213.0.11", model, removingEtcd: true, deletingBackups: false)
                .contains("/var/lib/etcd/default"))
        #expect(
            ClusterRemovalSurvey.paths(on: "10.213.0.11", model, removingEtcd: true, deletingBackups: false).last
                == "/var/lib/etcd/keel-removing-pg-lab", "the mark goes last, after etcd's data")
    }

    @Test("keys are deleted under the prefix with its trailing slash; an etcd that does not answer fails the step")
    func keys() throws {
        let model = try model()
        let context = try context()
        let keys = ClusterKeysDeleted(model: model)
        let changes = try keys.changes(from: ProbeOutput(text: "keys=4"), on: context)
        #expect(changes.first?.summary == "delete 4 key(s) under /service/pg-lab/")
        #expect(try keys.changes(from: ProbeOutput(text: "keys=0"), on: context).isEmpty)
        #expect(throws: ResourceError.self) { try keys.changes(from: ProbeOutput(text: ""), on: context) }
    }
}

extension RemoveClusterFlowTests {
    @Test("etcd is marked for removal only while its data is there, once")
    func etcdMark() throws {
        let model = try model()
        let context = try context()
        let mark = EtcdRemovalMarked(model: model)
        #expect(try mark.changes(from: ProbeOutput(text: "data=yes"), on: context).map(\.summary) == ["mark"])
        #expect(try mark.changes(from: ProbeOutput(text: "data=yes\nmark=yes"), on: context).isEmpty)
        #expect(try mark.changes(from: ProbeOutput(text: ""), on: context).isEmpty, "etcd's data already gone")
    }
}

extension RemoveClusterFlowTests {
    @Test(
        "any key outside the cluster's prefix is another user of etcd: another cluster's, another namespace's, an app's"
    )
    func otherEtcdUsers() throws {
        let model = try model()
        let keys = [
            "/service/pg-lab/leader", "", "/service/pg-lab/members/h1", "/service/pg-lab2/config",
            "/pg/other/leader", "/myapp/settings/a", "/myapp/settings/b", "plain",
        ]
        #expect(ClusterRemovalSurvey.otherUsers(ofKeys: keys, model) == ["/myapp/", "/pg/", "pg-lab2", "plain"])
        #expect(ClusterRemovalSurvey.otherUsers(ofKeys: ["/service/pg-lab/leader", ""], model).isEmpty)
        // A cluster whose name starts like this one's is another cluster.
        #expect(ClusterRemovalSurvey.otherUsers(ofKeys: ["/service/pg-lab-old/leader"], model) == ["pg-lab-old"])
    }

    @Test("removal takes every credential and key Keel wrote: API credentials, sudoers, VIP helper, SSH keys")
    func credentialsRemoved() throws {
        let model = try model()
        let member = ClusterRemovalSurvey.paths(on: "10.213.0.11", model, removingEtcd: true, deletingBackups: false)
        for path in [
            "/etc/keel", "/var/lib/postgresql/.pgpass_patroni", "/var/lib/postgresql/.ssh/id_ed25519",
            "/var/lib/postgresql/.ssh/authorized_keys", "/var/lib/postgresql/.ssh/known_hosts",
            "/usr/local/lib/keel/pgbackrest-ssh",
        ] {
            #expect(member.contains(path), "\(path) on a member: \(member)")
        }
        let repository = ClusterRemovalSurvey.paths(
            on: "10.213.0.16", model, removingEtcd: true, deletingBackups: false)
        #expect(repository.contains("/home/pgbackrest/.ssh/authorized_keys"), "\(repository)")
        #expect(repository.contains("/home/pgbackrest/.ssh/id_ed25519"), "\(repository)")
        #expect(repository.contains("/var/lib/keel/journal/restore"), "the removed cluster's restore records go too")
        #expect(!repository.contains("/etc/pgbackrest/pgbackrest.conf"), "kept backups keep their configuration")
        let balancer = ClusterRemovalSurvey.paths(on: "10.213.0.14", model, removingEtcd: true, deletingBackups: false)
        #expect(balancer.contains("/etc/systemd/system/keepalived.service.d/keel.conf"), "\(balancer)")
        #expect(balancer.contains("/etc/apt/apt.conf.d/51keel-hold"), "unattended-upgrades may update them again")
    }
}
