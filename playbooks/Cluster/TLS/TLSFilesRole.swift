import Keel

/// The cluster's CA, this database host's certificate and its key, where PostgreSQL and PgBouncer read them: a
/// root-owned directory postgres may read, the key postgres's own (0600). A renewed certificate reaches both
/// servers by a reload: no connection is dropped.
struct TLSFilesRole: Role {
    let authority: String
    let issued: ClusterTLS.Issued
    let model: ClusterModel

    var steps: [Step] {
        let postgres = Handler.run(
            name: "reload PostgreSQL's TLS files",
            command: "if pg_isready -q -h /var/run/postgresql -p \(model.postgresPort); then "
                + "runuser -u postgres -- psql -XAtq -p \(model.postgresPort) -c 'SELECT pg_reload_conf()'; fi")
        let pgbouncer = Handler.run(
            name: "reload PgBouncer's TLS files",
            command: "if systemctl is-active -q pgbouncer; then systemctl reload pgbouncer; fi")
        Directory(ClusterTLS.directory, mode: 0o750, owner: "root", group: "postgres")
        File(ClusterTLS.authorityFile, content: authority).onChange(postgres, pgbouncer)
        File(ClusterTLS.certificateFile, content: issued.certificate).onChange(postgres, pgbouncer)
        File(ClusterTLS.keyFile, contents: .secret(issued.key), mode: 0o600, owner: "postgres", group: "postgres")
            .onChange(postgres, pgbouncer)
    }
}
