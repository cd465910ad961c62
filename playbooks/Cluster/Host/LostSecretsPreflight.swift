import Keel

/// Before the first change: none of the secrets this run generated is one the cluster already uses here. The
/// secrets file beside the inventory lost them (a copy of the inventory without it, say), and new ones would lock
/// members, replicas, applications or keepalived peers out; a new CA would leave every client that verifies the
/// cluster unable to.
struct LostSecretsPreflight: PreflightCheck {
    func probe(_ model: ClusterModel, host: String) -> ShellCommand {
        var script: [ShellCommand] = []
        if model.databaseHosts.contains(host) {
            script.append("[ -e /etc/patroni/patroni.env ] && echo patroni_deployed=1")
            script.append("[ -e \(TLSFiles.patroni.authority) ] && echo tls_deployed=1")
            let generatedUsers = model.users.map(\.name).filter {
                model.generatedSecrets.contains(ClusterSecrets.userPassword($0))
            }
            if !generatedUsers.isEmpty {
                let names = generatedUsers.map(SQL.literal).joined(separator: ", ")
                let query = "SELECT 'role=' || rolname FROM pg_roles WHERE rolname IN (\(names));"
                script.append("printf '%s\\n' \(query) | \(model.postgres.psql()) 2>/dev/null")
            }
        }
        if model.etcdHosts.contains(host) {
            script.append("[ -e \(TLSFiles.etcd.authority) ] && echo tls_deployed=1")
        }
        if model.balancerHosts.contains(host) {
            script.append("grep -qs auth_pass \(KeepalivedRole.configuration) && echo vrrp_configured=1")
        }
        return script.joined(separator: "\n")
    }

    func problems(_ found: PreflightFindings, model: ClusterModel, host: String, on context: HostContext) -> [String] {
        var lost: [String] = []
        if found.contains("patroni_deployed=1") {
            lost += [ClusterVariable.superuserPassword, .replicationPassword, .restAPIPassword].map(\.rawValue)
                .filter { model.generatedSecrets.contains($0) }
        }
        lost += found.values("role").map(ClusterSecrets.userPassword).filter { model.generatedSecrets.contains($0) }
        if found.contains("vrrp_configured=1"), model.generatedSecrets.contains(ClusterSecrets.vrrpPassword) {
            lost.append(ClusterSecrets.vrrpPassword)
        }
        if found.contains("tls_deployed=1"),
            model.generatedSecrets.contains(ClusterTLS.Authority.cluster.secretNames.key)
        {
            lost.append(ClusterTLS.Authority.cluster.secretNames.key)
        }
        guard !lost.isEmpty else { return [] }
        return [
            "the cluster here already uses \(Set(lost).sorted().joined(separator: ", ")), but .keel-secrets.yml beside "
                + "the inventory does not hold them: restore the file (or set them in the inventory); Keel will not "
                + "replace passwords a running cluster uses"
        ]
    }
}
