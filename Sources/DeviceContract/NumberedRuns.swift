/// Names in a list grouped into runs of consecutive numbers under one stem (`fleet1`,
/// `fleet2`, `fleet3`): behind `fleet1–fleet3` on a console and `…/plain/1..3` on the wire.
public enum NumberedRuns {
    public enum Piece: Equatable, Sendable {
        /// A name with no number, as it was.
        case unnumbered(String)
        /// `stem` + `first` through `stem` + `last` (one name when they are equal).
        case run(stem: String, first: Int, last: Int)
    }

    /// The names in order, each run of consecutive numbers under one stem as one piece.
    /// `numbered` splits a name into its stem and number, or says it has none.
    public static func of(_ names: [String], numbered: (String) -> (stem: String, number: Int)?) -> [Piece] {
        var pieces: [Piece] = []
        for name in names {
            guard let (stem, number) = numbered(name) else {
                pieces.append(.unnumbered(name))
                continue
            }
            if case .run(stem, let first, let last)? = pieces.last, last + 1 == number {
                pieces[pieces.count - 1] = .run(stem: stem, first: first, last: number)
            } else {
                pieces.append(.run(stem: stem, first: number, last: number))
            }
        }
        return pieces
    }
}
