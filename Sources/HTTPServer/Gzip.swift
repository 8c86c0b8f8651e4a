import CZlib

/// gzip (RFC 1952) through zlib: one call compresses a whole response body.
public enum Gzip {
    /// The body gzip-compressed at `level` (1 fastest … 9 smallest), or nil if zlib refuses.
    /// The output buffer is sized by `deflateBound`, so a single `deflate(Z_FINISH)` always
    /// completes; memory per call is about the input size plus zlib's ~256 KiB of state.
    public static func compress(_ input: [UInt8], level: Int32) -> [UInt8]? {
        var stream = z_stream()
        // windowBits 15 + 16: a gzip header and trailer instead of zlib's; memLevel 8 is the default.
        let status = deflateInit2_(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
                                   zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        let capacity = Int(deflateBound(&stream, uLong(input.count)))
        var output = [UInt8](repeating: 0, count: capacity)
        let result: Int32 = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress)
                stream.avail_in = uInt(source.count)
                stream.next_out = destination.baseAddress
                stream.avail_out = uInt(destination.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard result == Z_STREAM_END else { return nil }
        output.removeLast(capacity - Int(stream.total_out))
        return output
    }
}
