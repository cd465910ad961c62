import Keel

/// The PGDG apt repository as a package source, its package lists fetched, so that the PostgreSQL, PgBouncer and
/// pgBackRest packages installed afterwards come from it (its versions rank above Debian's). The official
/// repository is verified with the key Debian's postgresql-common ships; a mirror with the key it signs with.
struct PGDGSource: Role {
    let repository: ClusterModel.PGDGRepository

    var steps: [Step] {
        let keyPath =
            repository.key == nil ? ClusterModel.PGDGRepository.officialKeyPath : "/etc/apt/keyrings/keel-pgdg.asc"
        if let key = repository.key {
            Directory("/etc/apt/keyrings")
            File(keyPath, content: key)
        } else {
            Package("postgresql-common")
        }
        File(
            "/etc/apt/sources.list.d/pgdg.sources",
            content: """
                # Managed by Keel: the PGDG repository, for PostgreSQL and its tools.
                Types: deb
                URIs: \(repository.url)
                Suites: bookworm-pgdg
                Components: main
                Signed-By: \(keyPath)

                """)
        // `apt-cache policy` lists a source once its lists are fetched.
        let listed = " \(repository.url) bookworm-pgdg/main "
        Command(
            AptGet.update(within: 300),
            what: "apt's lists of the PGDG repository",
            unless: "apt-cache policy | grep -qF \(listed)")
    }
}
