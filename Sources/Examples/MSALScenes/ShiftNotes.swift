import Foundation

/// A worker's shift notes, one file per worker in Documents, and the draft being written.
final class ShiftNotes {
    var currentUser: String?
    var draft = ""
    private let fileManager = FileManager.default

    private var folder: URL {
        fileManager.urls(for: .documentDirectory, in: .userDomainMask)[0].appendingPathComponent("shift-notes")
    }

    private func file(of user: String) -> URL { folder.appendingPathComponent("\(user).txt") }

    func add(_ note: String, of user: String) throws {
        try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
        let existing = (try? Data(contentsOf: file(of: user))) ?? Data()
        try (existing + Data((note + "\n").utf8)).write(to: file(of: user), options: .atomic)
    }

    /// The current worker's notes.
    func notes() -> [String] {
        guard let user = currentUser, let text = try? String(contentsOf: file(of: user), encoding: .utf8) else {
            return []
        }
        return text.split(separator: "\n").map(String.init)
    }

    /// Keeps the unfinished note with the current worker's notes.
    func saveDraft() {
        guard let user = currentUser, !draft.isEmpty else { return }
        try? add(draft, of: user)
        draft = ""
    }

    /// Removes everything of a worker who is gone.
    func removeEverything(of user: String) {
        try? fileManager.removeItem(at: file(of: user))
    }
}
