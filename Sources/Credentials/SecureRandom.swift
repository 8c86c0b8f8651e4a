import COpenSSL

/// Cryptographically secure randomness from OpenSSL's CSPRNG (seeded by the kernel).
public enum SecureRandom {
    /// `count` random bytes.
    public static func bytes(_ count: Int) throws(CredentialsError) -> [UInt8] {
        guard count > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: count)
        let status = buffer.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        guard status == 1 else { throw .randomUnavailable }
        return buffer
    }

    /// A URL-safe token (base64url, no padding) of `byteCount` random bytes: 32 bytes = 256 bits,
    /// far beyond guessing, and safe in headers, URLs and JSON without escaping.
    public static func token(byteCount: Int = 32) throws(CredentialsError) -> String {
        Base64.urlSafeEncoded(try bytes(byteCount))
    }
}
