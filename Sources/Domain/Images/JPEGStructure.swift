/// Walks a JPEG (ITU T.81 / JFIF) marker by marker: SOI, length-prefixed segments that stay
/// inside the file, a frame header (SOFn) with sane dimensions before the first scan, each
/// scan's entropy-coded data up to the next marker, and EOI as the very last two bytes.
enum JPEGStructure {
    static func validate(_ bytes: [UInt8]) throws(AvatarImage.Problem) {
        var offset = 2  // after SOI
        var sawFrame = false
        var sawScan = false
        while true {
            // Any number of 0xFF fill bytes may precede a marker (T.81 B.1.1.2).
            guard offset < bytes.count, bytes[offset] == 0xFF else { throw .malformed("a JPEG segment does not start with a marker") }
            while offset < bytes.count, bytes[offset] == 0xFF { offset += 1 }
            guard offset < bytes.count else { throw .malformed("a JPEG ends inside a marker") }
            let marker = bytes[offset]
            offset += 1
            switch marker {
            case 0xD9:  // EOI
                guard sawScan else { throw .malformed("a JPEG ends before any image data") }
                guard offset == bytes.count else { throw .malformed("bytes follow the JPEG's end-of-image marker") }
                return
            case 0xD8, 0x00, 0xD0...0xD7:
                // A second SOI, a stuffed zero or a restart marker outside a scan.
                throw .malformed("a JPEG has a misplaced marker")
            case 0x01:  // TEM: no length
                continue
            default:
                break
            }
            guard bytes.count - offset >= 2 else { throw .malformed("a JPEG segment is cut short") }
            let length = Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
            guard length >= 2, length <= bytes.count - offset else { throw .malformed("a JPEG segment runs past the end of the file") }
            let segment = bytes[offset + 2..<offset + length]
            offset += length
            if isFrameHeader(marker) {
                try frame(segment)
                sawFrame = true
            } else if marker == 0xDA {  // SOS
                guard sawFrame else { throw .malformed("a JPEG scan comes before its frame header") }
                sawScan = true
                offset = try endOfScan(bytes, from: offset)
            }
        }
    }

    /// SOF0…SOF15 except DHT (C4), JPG (C8) and DAC (CC), which share the range.
    private static func isFrameHeader(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }

    /// SOFn: precision, height, width (1…maxDimension; height 0 = "defined later" is refused),
    /// and one 3-byte entry per component.
    private static func frame(_ segment: ArraySlice<UInt8>) throws(AvatarImage.Problem) {
        let data = Array(segment)
        guard data.count >= 6 else { throw .malformed("a JPEG frame header is cut short") }
        let height = Int(data[1]) << 8 | Int(data[2])
        let width = Int(data[3]) << 8 | Int(data[4])
        let components = Int(data[5])
        guard (1...AvatarImage.maxDimension).contains(width), (1...AvatarImage.maxDimension).contains(height) else {
            throw .malformed("JPEG dimensions must be 1 to \(AvatarImage.maxDimension) pixels")
        }
        guard (1...4).contains(components), data.count == 6 + 3 * components else {
            throw .malformed("a JPEG frame header has a wrong component count")
        }
    }

    /// The offset of the marker that ends the entropy-coded data starting at `start`: the first
    /// 0xFF not followed by a stuffed 0x00, a fill 0xFF or a restart marker RST0–7.
    private static func endOfScan(_ bytes: [UInt8], from start: Int) throws(AvatarImage.Problem) -> Int {
        var offset = start
        while offset + 1 < bytes.count {
            if bytes[offset] == 0xFF {
                let next = bytes[offset + 1]
                if next != 0x00 && next != 0xFF && !(0xD0...0xD7).contains(next) { return offset }
                // A stuffed zero or restart marker: skip both bytes. Fill 0xFF: move on one.
                offset += next == 0xFF ? 1 : 2
            } else {
                offset += 1
            }
        }
        throw .malformed("a JPEG scan runs to the end of the file without an end-of-image marker")
    }
}
