/// Proof Key for Code Exchange (RFC 7636), as GoTrue accepts it: the client sends a challenge
/// with its request and the verifier when it exchanges the code, so a code intercepted from a
/// redirect is useless without the verifier that stayed on the device.
public enum PKCE {
    public enum Method: String, Sendable {
        case s256, plain
    }

    /// RFC 7636 §4.1/§4.2: 43 to 128 characters of [A-Za-z0-9-._~].
    public static func isWellFormed(_ value: String) -> Bool {
        (43...128).contains(value.utf8.count) && value.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
        }
    }

    /// Whether `verifier` answers `challenge`: S256 is base64url(SHA-256(verifier)) without
    /// padding; plain is the verifier itself. Compared in constant time.
    public static func verifies(_ verifier: String, challenge: String, method: Method) -> Bool {
        guard isWellFormed(verifier) else { return false }
        let expected: String
        switch method {
        case .s256: expected = Base64.urlSafeEncoded(SHA256.digest(Array(verifier.utf8)))
        case .plain: expected = verifier
        }
        return ConstantTime.equals(Array(expected.utf8), Array(challenge.utf8))
    }
}
