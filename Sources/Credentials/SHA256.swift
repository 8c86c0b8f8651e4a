import COpenSSL

/// SHA-256 for storing high-entropy tokens and API keys: they need no slow hash, only a one-way
/// one, so a database leak does not reveal usable credentials.
public enum SHA256 {
    public static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                _ = COpenSSL.SHA256(input.baseAddress, input.count, out.baseAddress)
            }
        }
        return output
    }

    /// Lowercase hex of the digest (64 characters).
    public static func hex(_ bytes: [UInt8]) -> String {
        Hex.encode(digest(bytes))
    }

    /// Lowercase hex of the digest of the string's UTF-8 bytes.
    public static func hex(_ string: String) -> String {
        hex(Array(string.utf8))
    }
}
