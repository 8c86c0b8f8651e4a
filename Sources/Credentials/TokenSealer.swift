/// Seals a refresh token under the token it replaced (AES-256-GCM, `AESGCM`).
///
/// Why: a session stores only SHA-256 hashes of its refresh tokens, yet a client that retries
/// a refresh (its first answer was lost) must get the session's current token back. Sealing
/// the successor under a key derived from its predecessor lets exactly the holder of the
/// predecessor recover it: the key is never stored (only the predecessor's SHA-256 is, and
/// the key is an HMAC of the predecessor, not its hash), so a database leak opens nothing.
public enum TokenSealer {
    /// Domain separation: this key is used for nothing else.
    static let keyLabel = Array("dispatch refresh-token successor v1".utf8)

    public static func seal(_ token: String, under predecessor: String) throws(CredentialsError) -> [UInt8] {
        try AESGCM.seal(Array(token.utf8), key: key(for: predecessor))
    }

    /// The sealed token, or nil when `predecessor` is not the key it was sealed under or the
    /// bytes were altered (GCM authenticates them).
    public static func open(_ sealed: [UInt8], under predecessor: String) -> String? {
        AESGCM.open(sealed, key: key(for: predecessor)).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// HMAC-SHA256(predecessor, label): 32 bytes, an AES-256 key.
    static func key(for predecessor: String) -> [UInt8] {
        Array(HMACSHA256.mac(key: Array(predecessor.utf8), keyLabel).prefix(32))
    }
}
