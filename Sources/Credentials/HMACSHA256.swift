import COpenSSL

/// HMAC-SHA256 (RFC 2104) through OpenSSL: the one keyed hash of the server, for JWT
/// signatures, sealing keys and the keyed hashes of e-mail codes.
public enum HMACSHA256 {
    public static func mac(key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        key.withUnsafeBufferPointer { keyBuffer in
            data.withUnsafeBufferPointer { dataBuffer in
                output.withUnsafeMutableBufferPointer { out in
                    _ = HMAC(EVP_sha256(), keyBuffer.baseAddress, Int32(keyBuffer.count),
                             dataBuffer.baseAddress, dataBuffer.count, out.baseAddress, &length)
                }
            }
        }
        return Array(output.prefix(Int(length)))
    }

    /// Lowercase hex of the MAC of the string's UTF-8 bytes (64 characters).
    public static func hex(key: [UInt8], _ string: String) -> String {
        Hex.encode(mac(key: key, Array(string.utf8)))
    }

    /// Lowercase hex of the MAC of raw bytes (a file's content, say).
    public static func hex(key: [UInt8], bytes: [UInt8]) -> String {
        Hex.encode(mac(key: key, bytes))
    }
}
