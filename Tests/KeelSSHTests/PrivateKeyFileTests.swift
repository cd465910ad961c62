import KeelCore
import KeelSSH
import KeelTestSupport
import Testing

@Suite("Private key inspection")
struct PrivateKeyFileTests {
    @Test("algorithm and encryption are read without the passphrase")
    func inspectsGeneratedKeys() throws {
        let keys = try TestKeys.shared()
        #expect(PrivateKeyFile.inspect(path: keys.clientEd25519) == .init(algorithm: .ed25519, isEncrypted: false))
        #expect(PrivateKeyFile.inspect(path: keys.clientEncrypted) == .init(algorithm: .ed25519, isEncrypted: true))
        #expect(PrivateKeyFile.inspect(path: keys.clientRSA) == .init(algorithm: .rsa, isEncrypted: false))
        #expect(PrivateKeyFile.inspect(path: keys.hostECDSA) == .init(algorithm: .ecdsa, isEncrypted: false))
        #expect(PrivateKeyFile.inspect(path: keys.clientEd25519 + ".pub") == nil)
        #expect(PrivateKeyFile.inspect(path: "/nonexistent") == nil)
    }

    @Test("PEM keys are recognised by their headers")
    func pem() {
        let text = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nabc\n-----END RSA PRIVATE KEY-----\n"
        #expect(PrivateKeyFile.inspect(text: text) == .init(algorithm: .rsa, isEncrypted: true))
    }
}
