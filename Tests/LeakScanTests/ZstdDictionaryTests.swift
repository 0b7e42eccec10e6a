import Foundation
import SharedDevice
import TestSupport
import Testing

@testable import LeakScan

/// zstd frames made with a dictionary (`zstd --train`, then `zstd -D`) read with the dictionary
/// they name, and name it when it is not there.
@Suite(.ownThread) struct ZstdDictionaryTests {
    static let dictionaryID: UInt32 = 1234

    /// A trained dictionary with ID 1234 and the frame `zstd -D` made of `record` with it.
    private func dictionaryAndFrame(
        of record: [UInt8], in container: ScratchContainer
    ) throws -> (dictionary: [UInt8], frame: [UInt8]) {
        try python(
            """
            import os, sys
            os.makedirs(sys.argv[1])
            for number in range(300):
                with open(os.path.join(sys.argv[1], str(number)), "w") as sample:
                    sample.write('{"user":"cou%d","app":"notes","shift":"%d","body":"record of the day %d"}'
                                 % (number % 7, number, number * 31))
            """, [container.path("samples")])
        let samples = try FileManager.default.contentsOfDirectory(atPath: container.path("samples"))
            .map { container.path("samples/" + $0) }
        let (dictionary, frame) = (container.path("notes.dict"), container.path("record.zst"))
        try run(
            ["zstd", "-q", "--train", "--maxdict=4096", "--dictID=\(Self.dictionaryID)", "-o", dictionary] + samples)
        try container.write(record, to: "record.json")
        try run(["zstd", "-q", "-D", dictionary, container.path("record.json"), "-o", frame])
        return (try contents(of: dictionary), try contents(of: frame))
    }

    private func recordJSON(_ number: Int) -> [UInt8] {
        Array(#"{"user":"cou1","app":"notes","shift":"9","body":"\#(canary(number))"}"#.utf8)
    }

    @Test func aFrameIsReadWithTheDictionaryItNames() throws {
        let container = try ScratchContainer()
        let (dictionary, frame) = try dictionaryAndFrame(of: recordJSON(1), in: container)
        let dictionaries = try kept([dictionary])
        #expect(dictionaries.ids == [Self.dictionaryID])
        let result = frame.withUnsafeBufferPointer {
            Zstd.decompress($0, limit: 1 << 20, dictionaries: dictionaries)
        }
        #expect(result.output == recordJSON(1))
        #expect(result.ended && !result.failed)
        #expect(result.consumed == frame.count)
        #expect(result.missingDictionary == nil)
    }

    @Test func aFrameWithoutItsDictionaryNamesIt() throws {
        let container = try ScratchContainer()
        let (_, frame) = try dictionaryAndFrame(of: recordJSON(2), in: container)
        let alone = frame.withUnsafeBufferPointer { Zstd.decompress($0, limit: 1 << 20) }
        #expect(alone.output.isEmpty)
        #expect(alone.consumed == 0)
        #expect(alone.missingDictionary == Self.dictionaryID)
        #expect(!alone.failed && !alone.ended)
        // After a frame that needs none: that frame's output, and where the next one starts.
        let first = try zstdFrame(of: record(canary(3)), in: container)
        let both = (first + frame).withUnsafeBufferPointer { Zstd.decompress($0, limit: 1 << 20) }
        #expect(both.output == record(canary(3)))
        #expect(both.consumed == first.count)
        #expect(both.missingDictionary == Self.dictionaryID)
    }

    @Test func framesWithAndWithoutTheDictionaryFollowEachOther() throws {
        let container = try ScratchContainer()
        let (dictionary, frame) = try dictionaryAndFrame(of: recordJSON(4), in: container)
        let plain = try zstdFrame(of: record(canary(5)), in: container)
        let dictionaries = try kept([dictionary])
        let result = (frame + plain + frame).withUnsafeBufferPointer {
            Zstd.decompress($0, limit: 1 << 20, dictionaries: dictionaries)
        }
        #expect(result.output == recordJSON(4) + record(canary(5)) + recordJSON(4))
        #expect(result.ended && result.missingDictionary == nil)
    }

    @Test func onlyDictionariesAreKept() throws {
        let container = try ScratchContainer()
        let (dictionary, frame) = try dictionaryAndFrame(of: recordJSON(6), in: container)
        var dictionaries = ZstdDictionaries()
        // A frame, random bytes, and the magic and the ID with nothing zstd loads after them.
        let others = [frame, randomBytes(4096), Array(dictionary.prefix(8)) + Array(repeating: 0xFF, count: 64)]
        #expect(others.map { dictionaries.add($0) } == [false, false, false])
        #expect(dictionaries.ids.isEmpty)
        let added = dictionaries.add(dictionary)
        #expect(added)
        #expect(dictionaries[Self.dictionaryID] == dictionary)
    }

    /// A set holding `dictionaries`, each of which it takes.
    private func kept(_ dictionaries: [[UInt8]]) throws -> ZstdDictionaries {
        var kept = ZstdDictionaries()
        for dictionary in dictionaries {
            let added = kept.add(dictionary)
            try #require(added)
        }
        return kept
    }

    private func zstdFrame(of bytes: [UInt8], in container: ScratchContainer) throws -> [UInt8] {
        try container.write(bytes, to: "plain.txt")
        try run(["zstd", "-q", "-f", container.path("plain.txt"), "-o", container.path("plain.zst")])
        return try contents(of: container.path("plain.zst"))
    }
}
