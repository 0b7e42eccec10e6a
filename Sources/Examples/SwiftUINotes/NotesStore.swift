import Foundation

/// A worker's notes in Documents, with a preview of each in Caches.
public final class NotesStore {
    /// The mistake this build ships with, for the examples that show one.
    public enum Mistake { case none, forgetsCaches }
    public nonisolated(unsafe) static var mistake = Mistake.none

    var currentUser: String?
    private let fileManager = FileManager.default

    private var notesFolder: URL { fileManager.urls(for: .documentDirectory, in: .userDomainMask)[0] }

    private func previews(of user: String) -> URL {
        fileManager.urls(for: .cachesDirectory, in: .userDomainMask)[0].appendingPathComponent("previews/\(user)")
    }

    func save(_ text: String, of user: String, id: String) throws {
        let file = notesFolder.appendingPathComponent("\(user).txt")
        try fileManager.createDirectory(at: notesFolder, withIntermediateDirectories: true)
        let existing = (try? Data(contentsOf: file)) ?? Data()
        try (existing + Data((text + "\n").utf8)).write(to: file, options: .atomic)
        try fileManager.createDirectory(at: previews(of: user), withIntermediateDirectories: true)
        try Data(text.utf8).write(
            to: previews(of: user).appendingPathComponent(id.replacingOccurrences(of: "/", with: "_")))
    }

    func shownNotes() -> [String] {
        guard let user = currentUser,
            let text = try? String(contentsOf: notesFolder.appendingPathComponent("\(user).txt"), encoding: .utf8)
        else { return [] }
        return text.split(separator: "\n").map(String.init)
    }

    func removeEverything(of user: String) {
        try? fileManager.removeItem(at: notesFolder.appendingPathComponent("\(user).txt"))
        if Self.mistake != .forgetsCaches { try? fileManager.removeItem(at: previews(of: user)) }
    }
}
