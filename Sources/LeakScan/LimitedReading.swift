/// A format's reading as its values come, held to the bytes the reader may produce: the value
/// that crosses the limit is cut there and the reading marked stopped.
struct LimitedReading {
    private(set) var reading = FormatReading()
    let limit: Int
    private var produced = 0

    init(limit: Int) { self.limit = limit }

    /// Adds a value, cut at the limit; false once the limit is reached, when the reader stops.
    mutating func add(_ label: String, _ bytes: [UInt8]) -> Bool {
        let room = max(limit - produced, 0)
        guard bytes.count <= room else {
            reading.add(label, Array(bytes.prefix(room)))
            produced = limit
            reading.stopped = true
            return false
        }
        reading.add(label, bytes)
        produced += bytes.count
        return true
    }

    mutating func problem(_ line: String) { reading.problems.append(line) }
}
