import Crypto
import Foundation
import Keel
import SwiftASN1
import X509

/// The cluster's own certificate authority and a certificate for each service on each host (``TLSService``), made
/// on the controller and kept in the secrets file: PostgreSQL, PgBouncer, Patroni's REST API, etcd, HAProxy's
/// stats page and metrics, and the exporters serve TLS with them, Patroni and Keel present the database's to
/// etcd, and clients verify the cluster against the CA (`sslmode=verify-full` to the VIP works: every database
/// host's certificate names it).
///
/// Patroni's REST API asks every client for a certificate of a second CA, ``Authority/apiClients``, which signs
/// only client certificates (Patroni's own and patronictl's, HAProxy's checks, the operator's Prometheus) and which
/// etcd does not trust: what may read the API may not write the DCS.
///
/// A certificate is issued again, with a new key, when it names other addresses than the model (a host
/// moved, the VIP changed) or has less than ``renewalMargin`` left: `keel deploy` is the renewal step. The CA
/// lasts ten years and is never replaced on hosts that use it: pre-flight refuses a secrets file that lost it (a
/// new CA would leave every member, etcd peer and client that verifies the cluster unable to connect).
public struct ClusterTLS: Sendable {
    /// A certificate in PEM and its private key (PKCS #8 PEM, never shown).
    public struct Issued: Sendable {
        public var certificate: String
        public var key: Secret
    }

    /// A service on a host.
    public struct Holder: Hashable, Sendable {
        public var host: String
        public var service: TLSService
    }

    /// The CAs that sign them.
    public enum Authority: Sendable {
        /// The cluster's: every service's certificate, which clients of PostgreSQL, etcd and the APIs verify.
        case cluster
        /// The REST API's clients': Patroni's API takes a client by its certificate of this CA alone.
        case apiClients

        /// The names of its key and certificate in the secrets file.
        var secretNames: (key: String, certificate: String) {
            switch self {
            case .cluster: ("tls_ca_key", "tls_ca_certificate")
            case .apiClients: ("tls_api_ca_key", "tls_api_ca_certificate")
            }
        }

        func commonName(cluster: String) -> String {
            switch self {
            case .cluster: "Keel CA for \(cluster)"
            case .apiClients: "Keel REST API clients CA for \(cluster)"
            }
        }
    }

    /// The cluster's CA certificate.
    public var authority: String
    /// The REST API clients' CA certificate (``Authority/apiClients``).
    public var apiClientAuthority: String
    public var issued: [Holder: Issued]

    /// The certificate of `service` on `host`, when the host runs it.
    public func issued(_ service: TLSService, on host: String) -> Issued? {
        issued[Holder(host: host, service: service)]
    }

    /// Certificates with less than this left are issued again.
    static let renewalMargin: TimeInterval = 30 * 86_400

    /// The CA and a certificate for each of `holders` (→ the addresses it must be valid for), from `secrets` or
    /// made now; with a read-only `secrets`, nothing is made and missing ones are empty.
    static func load(
        cluster: String, holders: [Holder: [String]], validDays: Int, secrets: ClusterSecrets
    ) throws -> ClusterTLS {
        let authorities = [
            Authority.cluster: try Self.authority(.cluster, cluster: cluster, secrets: secrets),
            .apiClients: try Self.authority(.apiClients, cluster: cluster, secrets: secrets),
        ]
        var issued: [Holder: Issued] = [:]
        for (holder, addresses) in holders {
            let (host, service) = (holder.host, holder.service)
            let (authorityKey, authority) = authorities[service.authority] ?? (nil, nil)
            let (certificateName, keyName) = service.secretNames(host: host)
            let names = Self.generalNames(host: host, addresses: addresses, loopback: service.namesLoopback)
            // Kept while it names the host as it is, may do what its service does and no more, stays valid a
            // while, and was issued by the CA in use (after the CA is replaced, every host gets a certificate of
            // the new one).
            if let pem = secrets.stored(certificateName), let key = secrets.stored(keyName),
                let certificate = try? Certificate(pemEncoded: pem),
                Self.names(of: certificate) == Set(names),
                (try? certificate.extensions.extendedKeyUsage).map(Set.init) == Set(service.usages),
                certificate.notValidAfter.timeIntervalSinceNow > renewalMargin,
                let authority, certificate.issuer == authority.subject,
                authority.publicKey.isValidSignature(certificate.signature, for: certificate)
            {
                issued[holder] = Issued(certificate: pem, key: Secret(key))
                continue
            }
            guard let authorityKey, let authority else {
                issued[holder] = Issued(certificate: "", key: Secret(""))
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
                    try ExtendedKeyUsage(service.usages)
                    SubjectAlternativeNames(names)
                },
                issuerPrivateKey: Certificate.PrivateKey(authorityKey))
            let pem = try certificate.serializeAsPEM().pemString
            secrets.store(certificateName, pem)
            secrets.store(keyName, key.pemRepresentation)
            issued[holder] = Issued(certificate: pem, key: Secret(key.pemRepresentation))
        }
        return ClusterTLS(
            authority: try authorities[.cluster]?.1?.serializeAsPEM().pemString ?? "",
            apiClientAuthority: try authorities[.apiClients]?.1?.serializeAsPEM().pemString ?? "", issued: issued)
    }

    /// The stored CA, or a new one; nil when the secrets are read-only and hold none.
    private static func authority(_ which: Authority, cluster: String, secrets: ClusterSecrets) throws -> (
        P256.Signing.PrivateKey?, Certificate?
    ) {
        let (keyName, certificateName) = which.secretNames
        if let pem = secrets.stored(certificateName), let keyPEM = secrets.stored(keyName) {
            let key = try P256.Signing.PrivateKey(pemRepresentation: keyPEM)
            let certificate = try Certificate(pemEncoded: pem)
            // Certificates signed with another key than the CA's would be refused by every peer.
            guard certificate.publicKey == Certificate.PublicKey(key.publicKey) else {
                throw MismatchedAuthority(key: keyName, certificate: certificateName)
            }
            return (key, certificate)
        }
        guard secrets.mayGenerate else {
            secrets.noteMissing(certificateName)
            return (nil, nil)
        }
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName(which.commonName(cluster: cluster)) }
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
        secrets.store(certificateName, try certificate.serializeAsPEM().pemString)
        secrets.store(keyName, key.pemRepresentation)
        return (key, certificate)
    }

    /// A CA's key in the secrets file is not the key of its certificate.
    struct MismatchedAuthority: Error, CustomStringConvertible {
        let key: String
        let certificate: String
        var description: String { "\(key) is not the key of \(certificate)" }
    }

    /// The names a certificate holds: the host's inventory name, with `loopback` `localhost` and 127.0.0.1, and
    /// each address (IPv4 as an IP entry, anything else as a DNS name).
    static func generalNames(host: String, addresses: [String], loopback: Bool) -> [GeneralName] {
        var names: [GeneralName] = [.dnsName(host)] + (loopback ? [.dnsName("localhost")] : [])
        for address in (loopback ? ["127.0.0.1"] : []) + addresses {
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
