import Crypto
import Foundation
import Keel
import SwiftASN1
import X509

/// The cluster's own certificate authority and a certificate for each database and etcd host, made on the
/// controller and kept in the secrets file: PostgreSQL, PgBouncer, Patroni's REST API and etcd serve TLS with them,
/// Patroni and Keel present them to etcd, and clients verify the cluster against the CA (`sslmode=verify-full` to
/// the VIP works: every database host's certificate names it).
///
/// A host's certificate is issued again, with a new key, when it names other addresses than the model (a host
/// moved, the VIP changed) or has less than ``renewalMargin`` left: `keel deploy` is the renewal step. The CA
/// lasts ten years and is never replaced on hosts that use it: pre-flight refuses a secrets file that lost it (a
/// new CA would leave every member, etcd peer and client that verifies the cluster unable to connect).
public struct ClusterTLS: Sendable {
    /// A certificate in PEM and its private key (PKCS #8 PEM, never shown).
    public struct Issued: Sendable {
        public var certificate: String
        public var key: Secret
    }

    public var authority: String
    public var hosts: [String: Issued]

    /// The names of the CA's key and certificate in the secrets file.
    static let authorityKeyName = "tls_ca_key"
    static let authorityCertificateName = "tls_ca_certificate"

    /// Host certificates with less than this left are issued again.
    static let renewalMargin: TimeInterval = 30 * 86_400

    /// The CA and a certificate for each of `hosts` (name → the addresses it must be valid for), from `secrets`
    /// or made now; with a read-only `secrets`, nothing is made and missing ones are empty.
    static func load(
        cluster: String, hosts: [String: [String]], validDays: Int, secrets: ClusterSecrets
    ) throws -> ClusterTLS {
        let (authorityKey, authority) = try Self.authority(cluster: cluster, secrets: secrets)
        var issued: [String: Issued] = [:]
        for (host, addresses) in hosts {
            let certificateName = "tls_\(host)_certificate"
            let keyName = "tls_\(host)_key"
            // Kept while it names the host as it is, stays valid a while, and was issued by the CA in use (after
            // the CA is replaced, every host gets a certificate of the new one).
            if let pem = secrets.stored(certificateName), let key = secrets.stored(keyName),
                let certificate = try? Certificate(pemEncoded: pem),
                Self.names(of: certificate) == Set(Self.generalNames(host: host, addresses: addresses)),
                certificate.notValidAfter.timeIntervalSinceNow > renewalMargin,
                let authority, certificate.issuer == authority.subject,
                authority.publicKey.isValidSignature(certificate.signature, for: certificate)
            {
                issued[host] = Issued(certificate: pem, key: Secret(key))
                continue
            }
            guard let authorityKey, let authority else {
                issued[host] = Issued(certificate: "", key: Secret(""))
                continue
            }
            let key = P256.Signing.PrivateKey()
            let now = Date()
            let certificate = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(),
                publicKey: Certificate.PublicKey(key.publicKey),
                notValidBefore: now.addingTimeInterval(-300),
                notValidAfter: now.addingTimeInterval(TimeInterval(validDays) * 86_400),
                issuer: authority.subject,
                subject: try DistinguishedName { CommonName(host) },
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true, keyEncipherment: true))
                    try ExtendedKeyUsage([.serverAuth, .clientAuth])
                    SubjectAlternativeNames(Self.generalNames(host: host, addresses: addresses))
                },
                issuerPrivateKey: Certificate.PrivateKey(authorityKey))
            let pem = try certificate.serializeAsPEM().pemString
            secrets.store(certificateName, pem)
            secrets.store(keyName, key.pemRepresentation)
            issued[host] = Issued(certificate: pem, key: Secret(key.pemRepresentation))
        }
        return ClusterTLS(
            authority: try authority?.serializeAsPEM().pemString ?? "", hosts: issued)
    }

    /// The stored CA, or a new one; nil when the secrets are read-only and hold none.
    private static func authority(cluster: String, secrets: ClusterSecrets) throws -> (
        P256.Signing.PrivateKey?, Certificate?
    ) {
        if let pem = secrets.stored(authorityCertificateName), let keyPEM = secrets.stored(authorityKeyName) {
            let key = try P256.Signing.PrivateKey(pemRepresentation: keyPEM)
            let certificate = try Certificate(pemEncoded: pem)
            // Certificates signed with another key than the CA's would be refused by every peer.
            guard certificate.publicKey == Certificate.PublicKey(key.publicKey) else {
                throw MismatchedAuthority()
            }
            return (key, certificate)
        }
        guard secrets.mayGenerate else {
            secrets.noteMissing(authorityCertificateName)
            return (nil, nil)
        }
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName("Keel CA for \(cluster)") }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey), notValidBefore: now.addingTimeInterval(-300),
            notValidAfter: now.addingTimeInterval(10 * 365 * 86_400), issuer: name, subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: Certificate.PrivateKey(key))
        secrets.store(authorityCertificateName, try certificate.serializeAsPEM().pemString)
        secrets.store(authorityKeyName, key.pemRepresentation)
        return (key, certificate)
    }

    /// The CA's key in the secrets file is not the key of its certificate.
    struct MismatchedAuthority: Error, CustomStringConvertible {
        var description: String { "\(authorityKeyName) is not the key of \(authorityCertificateName)" }
    }

    /// The names a host's certificate holds: its inventory name, `localhost`, and each address (IPv4 as an IP
    /// entry, anything else as a DNS name).
    static func generalNames(host: String, addresses: [String]) -> [GeneralName] {
        var names: [GeneralName] = [.dnsName(host), .dnsName("localhost")]
        for address in ["127.0.0.1"] + addresses {
            if IPv4.isValid(address) {
                let octets = address.split(separator: ".").compactMap { UInt8($0) }
                names.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice(octets))))
            } else {
                names.append(.dnsName(address))
            }
        }
        var seen: Set<GeneralName> = []
        return names.filter { seen.insert($0).inserted }
    }

    private static func names(of certificate: Certificate) -> Set<GeneralName> {
        Set((try? certificate.extensions.subjectAlternativeNames).flatMap { $0.map { $0 } } ?? [])
    }
}
