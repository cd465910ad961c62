import Foundation

/// The cluster as it will run after a major upgrade.
extension ClusterModel {
    /// The model on major release `version`: its packages, programs and data directory (the version's own, so
    /// that the old one is kept beside it).
    /// - Throws: ``FlowError`` when the data directory does not name the running version (a path without it would
    ///   be the same for both).
    func upgraded(to version: Int) throws(FlowError) -> ClusterModel {
        let old = "/\(postgresVersion)/"
        guard dataDirectory.contains(old) else {
            throw FlowError(
                "postgresql_data_dir \(dataDirectory) does not name the version (\(postgresVersion)): the upgraded "
                    + "cluster needs a directory of its own beside it",
                hint:
                    "use a path with the version in it, as /var/lib/postgresql/\(postgresVersion)/main (nothing was changed)"
            )
        }
        var upgraded = self
        upgraded.postgresVersion = version
        upgraded.dataDirectory = dataDirectory.replacingOccurrences(of: old, with: "/\(version)/")
        return upgraded
    }
}
