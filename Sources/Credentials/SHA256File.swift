import COpenSSL
import Foundation

extension SHA256 {
    /// Lowercase hex SHA-256 of a file's bytes, read in 1 MiB pieces through OpenSSL's EVP
    /// digest (backups can be far larger than memory). nil when the file cannot be read.
    public static func hex(fileAtPath path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path), let context = EVP_MD_CTX_new() else { return nil }
        defer {
            EVP_MD_CTX_free(context)
            try? handle.close()
        }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else { return nil }
        while true {
            // nil (or empty) is the end of the file; a read error throws.
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: 1 << 20)
            } catch {
                return nil
            }
            guard let chunk, !chunk.isEmpty else { break }
            let updated = chunk.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
            guard updated == 1 else { return nil }
        }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1 else { return nil }
        return Hex.encode(Array(digest.prefix(Int(length))))
    }
}
