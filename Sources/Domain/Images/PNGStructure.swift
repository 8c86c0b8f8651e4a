/// Walks a PNG (ISO/IEC 15948) chunk by chunk: every chunk's length in bounds and CRC valid,
/// IHDR first with sane dimensions and a legal depth/colour combination, at least one IDAT,
/// no unknown critical chunk, and IEND last with nothing after it.
enum PNGStructure {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Critical chunks this format defines; any other critical (upper-case first letter)
    /// chunk must make a decoder fail, so it is refused here too.
    private static let knownCritical: Set<String> = ["IHDR", "PLTE", "IDAT", "IEND"]

    static func validate(_ bytes: [UInt8]) throws(AvatarImage.Problem) {
        var offset = signature.count
        var index = 0
        var sawData = false
        while true {
            guard bytes.count - offset >= 12 else { throw .malformed("a PNG chunk is cut short") }
            let length = Int(uint32(bytes, at: offset))
            guard length <= Int(Int32.max), length <= bytes.count - offset - 12 else {
                throw .malformed("a PNG chunk's length runs past the end of the file")
            }
            let typeBytes = bytes[offset + 4..<offset + 8]
            guard typeBytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
                throw .malformed("a PNG chunk type is not four letters")
            }
            let type = String(decoding: typeBytes, as: UTF8.self)
            let dataStart = offset + 8
            let crcStart = dataStart + length
            guard CRC32.checksum(bytes[offset + 4..<crcStart]) == uint32(bytes, at: crcStart) else {
                throw .malformed("the CRC of PNG chunk \(type) does not match")
            }
            if index == 0 {
                guard type == "IHDR", length == 13 else { throw .malformed("a PNG must start with its IHDR chunk") }
                try header(Array(bytes[dataStart..<crcStart]))
            } else if type == "IHDR" {
                throw .malformed("a PNG has a second IHDR chunk")
            }
            if typeBytes.first.map({ (0x41...0x5A).contains($0) }) == true, !knownCritical.contains(type) {
                throw .malformed("a PNG has an unknown critical chunk \(type)")
            }
            if type == "IDAT" { sawData = true }
            offset = crcStart + 4
            index += 1
            if type == "IEND" {
                guard length == 0, sawData else { throw .malformed("a PNG ends without image data") }
                guard offset == bytes.count else { throw .malformed("bytes follow the PNG's IEND chunk") }
                return
            }
        }
    }

    /// IHDR: width, height (1…maxDimension), bit depth allowed for the colour type,
    /// compression 0, filter 0, interlace 0 or 1.
    private static func header(_ data: [UInt8]) throws(AvatarImage.Problem) {
        let width = uint32(data, at: 0)
        let height = uint32(data, at: 4)
        let limit = UInt32(AvatarImage.maxDimension)
        guard (1...limit).contains(width), (1...limit).contains(height) else {
            throw .malformed("PNG dimensions must be 1 to \(AvatarImage.maxDimension) pixels")
        }
        let depth = data[8]
        let allowed: [UInt8: Set<UInt8>] = [0: [1, 2, 4, 8, 16], 2: [8, 16], 3: [1, 2, 4, 8], 4: [8, 16], 6: [8, 16]]
        guard allowed[data[9]]?.contains(depth) == true, data[10] == 0, data[11] == 0, data[12] <= 1 else {
            throw .malformed("the PNG header has an invalid depth, colour type or method")
        }
    }

    private static func uint32(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
