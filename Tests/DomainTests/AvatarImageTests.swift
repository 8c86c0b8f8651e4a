@testable import Domain
import Foundation
import Testing

/// Avatars are walked to their end: real PNG/JPEG files pass, polyglots and broken files do not.
@Suite struct AvatarImageTests {
    /// 16×16 palette PNG with cHRM, PLTE, tRNS, bKGD, IDAT and two tEXt chunks (CPython's
    /// imghdr test image).
    static let png = [UInt8](Data(base64Encoded: """
        iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAMAAAAoLQ9TAAAAIGNIUk0AAHomAACAhAAA+gAAAIDoAAB1MAAA6mAAADqYAAAXcJy6UTwAAAHFUExURQAAAE6NwEqGujxxnjdolgAAAAAAAAAAAAAAAAAAAE6PxEyKv0iFtkN9rT10oTlsljZmkAAAAAAAAFKRxv3dSvnVPgAAADJghwAAAP3VNgAAADVokgAAAOzORQAAADZpkxsxRQAAAAAAAOLDRf3ZQQAAAEaBsjZnkQAAAPLhbv3pav3LG0N9rhwyS/Xjb/PBGkB1oz1zogAAAMKaEgAAAAAAAAAAAAAAAAAAAOjHPevFNOvCKuu+Ieu7GMabEgAAAAAAAAAAAAAAAAAAAAAAAAAAAP3eTgAAAAAAAAAAAAAAAPHQP/rTOf3SL/rHGcCXEgAAAAAAAAAAAAAAAAAAAAAAAEiDtER+rUB4p0yKvP///0V/r0F5qD50ojpvmzZplEmFt0aAsUJ7qj51oztwnTdqljhsl0+NwUuIu0R9rUB4pj1zoDltmf/iVVCPw0yJvEiEtT10of/eS//aQU2LvkaAsDtwnP/aQv/WN//TLUqHuUeBskN8qz92pf/XOP/PI//mYf/jV//fTf/bQv/TLv/PJP/rbP/nYf/bQ//XOf/MHDpwnP/nYv/jWP/fTv/TL//bRP/XOv/TMP/QJf/YOv/UMP/QJpJJAAIAAABWdFJOUwCv7feSCwMoQRV+oKGjp6qqSBi994IKtkPtJPdPiD22XExHa/dG96pOpvf311uzwm/3S3o0CCE8NaqpqampeSACCRMSLB73QBwFAUzM99h7Ox1CRTgf+DIQcQAAAAFiS0dEWgO7paIAAAD1SURBVBjTY2AAAkamsPAIZhZWNgYoiIyKjomNi2dnhQkkJCYlp6TGc3CCeVzcPLx8/AJp8fGCQiC+cHpGWGZWdk48UCBXRFSMIS+/IDqmMA7IF5coKpaUYihJKE1KLkuNlxaXkS2vqJRjqKquqZVXUBRU4lBWqausV2VQy8xS19DUamhsaq5radVWYtCJKdTVa2tvbOrobGnt0udgMDDsNmrr6e3r6Oxv7eoyNmEwNTO3APItraxtbG3tOOwZHBydnHv7JkycNLmLw8LFFeJ6twlTpk6L0nb3cPT0Agt4+/hO6/LzD3CGec400CJIKTgk1BTIBgBAYkJ/yC2b5QAAACV0RVh0ZGF0ZTpjcmVhdGUAMjAxNC0wMS0yNlQyMDo1OTozNyswMjowMPuaB3cAAAAldEVYdGRhdGU6bW9kaWZ5ADIwMTQtMDEtMjZUMjA6NTk6MDArMDI6MDDB74amAAAAAElFTkSuQmCC
        """, options: .ignoreUnknownCharacters) ?? Data())

    /// 16×16 baseline JFIF JPEG (CPython's email test image).
    static let jpeg = [UInt8](Data(base64Encoded: """
        /9j/4AAQSkZJRgABAQEAAQABAAD/2wBDAAMCAgICAgMCAgIDAwMDBAYEBAQEBAgGBgUGCQgKCgkICQkKDA8MCgsOCwkJDRENDg8QEBEQCgwSExIQEw8QEBD/2wBDAQMDAwQDBAgEBAgQCwkLEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBD/wAARCAAQABADASIAAhEBAxEB/8QAFgABAQEAAAAAAAAAAAAAAAAABwQF/8QAJBAAAQQBBAICAwAAAAAAAAAAAQIDBAYFBwgSExEiABQJMTL/xAAVAQEBAAAAAAAAAAAAAAAAAAAABv/EACMRAAECBQMFAAAAAAAAAAAAAAECEQMEBQYhABIxFRZhgeH/2gAMAwEAAhEDEQA/ABSm0mobc8HmExLUlRzzEWPkJWW+ulrsaUVAseUgslSlH9LKuPryIKuWPZdskzXmm3fX5m2nF4GlVxx/HOpx4ks51+MiU/Iaad7UcUo4tILoS4kqcWkezS0hO/HvuRp0rO6hWnWO1UisZVuFi4GFeyEpmGepa5S5SWVPuciFKRFLgSrwetnyPIB+Vb4N9mKhQMzo5po9XLdDs9d6ZVix2VEhiL9kuNPxw2gEKcDQ/rs8AuA8VAe0vdl7VOYn+27flGAUgmITjbhSmCg3BYlyeWDkMolvw4KOp1KM6iCNvngZHwetf//Z
        """, options: .ignoreUnknownCharacters) ?? Data())

    static let html = Array("<html><script>alert(document.cookie)</script></html>".utf8)

    /// A chunk with a correct CRC, to build files that differ only where the test says.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeAndData = Array(type.utf8) + data
        let length = UInt32(data.count), crc = CRC32.checksum(typeAndData[...])
        return [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: length >> $0) } + typeAndData
            + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> $0) }
    }

    /// The PNG's chunks after the signature, split so tests can rebuild it.
    static var pngBeforeIEND: [UInt8] { Array(png.dropLast(12)) }
    static var iend: [UInt8] { Array(png.suffix(12)) }

    @Test func crcMatchesTheStandardCheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)[...]) == 0xCBF4_3926)
    }

    @Test func realImagesPass() throws {
        #expect(Self.png.count == 1020 && Self.jpeg.count == 543)
        #expect(try AvatarImage.validate(Self.png) == .png)
        #expect(try AvatarImage.validate(Self.jpeg) == .jpeg)
    }

    /// Text inside a valid ancillary chunk or comment is image metadata by the format's own
    /// rules; it is accepted and, served as an image with nosniff, never interpreted.
    @Test func markupInsideValidMetadataIsAccepted() throws {
        let textChunk = Self.chunk("tEXt", Array("Comment".utf8) + [0] + Self.html)
        #expect(try AvatarImage.validate(Self.pngBeforeIEND + textChunk + Self.iend) == .png)
        let length = Self.html.count + 2
        let comment: [UInt8] = [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)] + Self.html
        #expect(try AvatarImage.validate(Array(Self.jpeg.prefix(2)) + comment + Array(Self.jpeg.dropFirst(2))) == .jpeg)
    }

    static func ihdr(width: UInt32, height: UInt32, depth: UInt8 = 8, colour: UInt8 = 3) -> [UInt8] {
        let be: (UInt32) -> [UInt8] = { value in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        return chunk("IHDR", be(width) + be(height) + [depth, colour, 0, 0, 0])
    }

    static var malformedPNGs: [(String, [UInt8])] {
        let signature = Array(png.prefix(8))
        let afterIHDR = Array(png.dropFirst(8 + 25))
        var badCRC = png
        badCRC[700] ^= 0x01  // inside IDAT
        return [
            ("trailing HTML after IEND", png + html),
            ("signature then HTML", signature + html),
            ("signature only", signature),
            ("truncated before IEND", pngBeforeIEND),
            ("cut mid-chunk", Array(png.prefix(600))),
            ("IDAT byte flipped", badCRC),
            ("IHDR not first", signature + Array(afterIHDR.prefix(44)) + Array(png[8..<33]) + Array(afterIHDR.dropFirst(44))),
            ("width 0", signature + ihdr(width: 0, height: 16) + afterIHDR),
            ("height 100000", signature + ihdr(width: 16, height: 100_000) + afterIHDR),
            ("depth 16 with a palette", signature + ihdr(width: 16, height: 16, depth: 16) + afterIHDR),
            ("unknown critical chunk", pngBeforeIEND + chunk("HTML", html) + iend),
            ("no IDAT", signature + Array(png[8..<33]) + iend),
            ("length past the end", signature + [0x7F, 0xFF, 0xFF, 0xFF] + Array("IHDR".utf8) + html),
        ]
    }

    @Test(arguments: malformedPNGs)
    func brokenOrPolyglotPNGIsRefused(_ name: String, _ bytes: [UInt8]) {
        #expect(throws: (any Error).self, "\(name)") { try AvatarImage.validate(bytes) }
        #expect(AvatarImage.sniff(bytes) == .png)
    }

    static var malformedJPEGs: [(String, [UInt8])] {
        [
            ("trailing HTML after EOI", jpeg + html),
            ("SOI then HTML", [0xFF, 0xD8] + html),
            ("SOI only", [0xFF, 0xD8]),
            ("no EOI", Array(jpeg.dropLast(2))),
            ("cut inside a segment", Array(jpeg.prefix(100))),
            ("EOI before any scan", [0xFF, 0xD8, 0xFF, 0xD9]),
            ("segment length past the end", [0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF] + html),
            ("second SOI", Array(jpeg.prefix(2)) + jpeg),
            ("scan before the frame", [0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02, 0x11, 0x22, 0xFF, 0xD9]),
        ]
    }

    @Test(arguments: malformedJPEGs)
    func brokenOrPolyglotJPEGIsRefused(_ name: String, _ bytes: [UInt8]) {
        #expect(throws: (any Error).self, "\(name)") { try AvatarImage.validate(bytes) }
    }

    @Test(arguments: [Array("GIF89a......".utf8), html, [], [0x89, 0x50]])
    func otherFilesAreNotImages(_ bytes: [UInt8]) {
        #expect(throws: AvatarImage.Problem.notAnImage) { try AvatarImage.validate(bytes) }
    }

    /// Every prefix and many random mutations of both images: always an answer, never a trap.
    @Test func everyPrefixAndMutationAnswers() {
        var generator = SystemRandomNumberGenerator()
        for image in [Self.png, Self.jpeg] {
            for length in 0..<image.count { _ = try? AvatarImage.validate(Array(image.prefix(length))) }
            for _ in 0..<2000 {
                var mutated = image
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    mutated[Int.random(in: 0..<image.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
                _ = try? AvatarImage.validate(mutated)
            }
            #expect(throws: (any Error).self) { try AvatarImage.validate(Array(image.prefix(image.count - 1))) }
        }
    }
}
