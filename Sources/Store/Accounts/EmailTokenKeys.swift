import Credentials
import Foundation

/// The keyed hashes under which e-mail codes, links and PKCE codes are stored. The key is
/// derived from the server secret (JWT_SECRET) with a label of its own, so it is never the
/// signing key itself and every instance sharing the secret shares it.
public struct EmailTokenKeys: Sendable {
    let key: [UInt8]

    public init(serverSecret: String) {
        key = HMACSHA256.mac(key: Array(serverSecret.utf8), Array("dispatch e-mail tokens v1".utf8))
    }

    /// A code is hashed with its row's id, so equal codes of two rows store different hashes.
    func codeHash(tokenID: UUID, code: String) -> String {
        HMACSHA256.hex(key: key, "code:\(tokenID.uuidString.lowercased()):\(code)")
    }

    func linkHash(_ token: String) -> String {
        HMACSHA256.hex(key: key, "link:\(token)")
    }

    func pkceCodeHash(_ code: String) -> String {
        HMACSHA256.hex(key: key, "pkce:\(code)")
    }
}
