/// Delta debugging (ddmin): the smallest sub-list found for which a failure still happens.
public enum Shrinking {
    /// Removes ever smaller chunks of `items` while `fails` holds for what is left, trying at
    /// most `budget` candidates. `fails(items)` is taken to hold.
    public static func shrink<T>(_ items: [T], budget: Int, fails: ([T]) async -> Bool) async -> [T] {
        var items = items
        var chunks = 2
        var tries = 0
        while items.count > 1, tries < budget {
            let size = (items.count + chunks - 1) / chunks
            var removed = false
            for start in stride(from: 0, to: items.count, by: size) where tries < budget {
                let candidate = Array(items[..<start] + items[min(start + size, items.count)...])
                tries += 1
                if await fails(candidate) {
                    items = candidate
                    chunks = max(chunks - 1, 2)
                    removed = true
                    break
                }
            }
            if !removed {
                guard size > 1 else { break }
                chunks = min(chunks * 2, items.count)
            }
        }
        return items
    }

    /// As `shrink`, removing only the items `removable` says may go; the others stay in place.
    public static func shrink<T>(
        _ items: [T], removable: (T) -> Bool, budget: Int,
        fails: ([T]) async -> Bool
    ) async -> [T] {
        func keeping(_ chosen: [Int]) -> [T] {
            let chosen = Set(chosen)
            return items.indices.filter { !removable(items[$0]) || chosen.contains($0) }.map { items[$0] }
        }
        let kept = await shrink(items.indices.filter { removable(items[$0]) }, budget: budget) {
            await fails(keeping($0))
        }
        return keeping(kept)
    }
}
