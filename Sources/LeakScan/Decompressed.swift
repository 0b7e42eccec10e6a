/// What a decompressor made of the data at the start of its input.
struct Decompressed {
    var output: [UInt8]
    /// Input bytes read.
    var consumed: Int
    /// Whether the stream ended as its format says.
    var ended: Bool
    /// Whether the data was refused as not of its format (rather than cut short or stopped at
    /// the limit); at a magic number found by chance, the usual end.
    var failed: Bool
    /// The ID of the dictionary the zstd frame at `consumed` needs and was not given: what is
    /// after that frame was not read.
    var missingDictionary: UInt32? = nil

    static let nothing = Decompressed(output: [], consumed: 0, ended: false, failed: true)

    /// Whether the output stopped at `limit` with the stream not ended: more was there.
    func stopped(at limit: Int) -> Bool { !ended && !failed && output.count >= limit }
}
