import Foundation
import Keel

/// Where the model's software comes from, read from the inventory: the PGDG repository, the Patroni wheel's digest.
extension ClusterModel {
    /// The PGDG repository when `pgdg_repository` is true: `pgdg_repository_url` for a mirror, with the key it signs
    /// with in `pgdg_repository_key_file` (on this machine, relative to the inventory). Debian 12 itself packages
    /// PostgreSQL 15 only.
    static func pgdg(_ reader: VariableReader, inventory: Inventory, version: Int) throws(InventoryError)
        -> PGDGRepository?
    {
        guard try reader.bool(.pgdgRepository) ?? false else {
            if version != 15 {
                throw InventoryError(
                    "postgresql_version is \(version), but Debian 12 packages PostgreSQL 15 only",
                    at: reader.origin(.postgresqlVersion), hint: "set pgdg_repository: true, or use 15")
            }
            return nil
        }
        var url = try reader.string(.pgdgRepositoryURL) ?? PGDGRepository.official
        while url.hasSuffix("/") { url.removeLast() }
        guard url.hasPrefix("http://") || url.hasPrefix("https://"), !url.contains(where: \.isWhitespace) else {
            throw InventoryError(
                "pgdg_repository_url '\(url)' is not an http(s) URL", at: reader.origin(.pgdgRepositoryURL),
                hint: "give the repository's base URL, as \(PGDGRepository.official)")
        }
        guard let keyFile = try reader.string(.pgdgRepositoryKeyFile), !keyFile.isEmpty else {
            return PGDGRepository(url: url, key: nil)
        }
        let origin = reader.origin(.pgdgRepositoryKeyFile)
        let base = (inventory.path as NSString).deletingLastPathComponent
        let path = keyFile.hasPrefix("/") ? keyFile : (base as NSString).appendingPathComponent(keyFile)
        guard let key = try? String(contentsOfFile: path, encoding: .utf8),
            key.contains("-----BEGIN PGP PUBLIC KEY BLOCK-----")
        else {
            throw InventoryError(
                "pgdg_repository_key_file \(path) is not a readable ASCII-armored public key", at: origin,
                hint: "export the mirror's signing key with gpg --armor --export")
        }
        return PGDGRepository(url: url, key: key)
    }
}
