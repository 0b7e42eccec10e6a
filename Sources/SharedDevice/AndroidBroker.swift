/// What the Android broker (Microsoft Authenticator or Company Portal in shared device mode)
/// tells apps: it sends a broadcast intent with this action at every announcement of an account
/// change, which an app hears through a receiver it registered for the action
/// (Docs/behaviour.md §2, §5). iOS apps hear the Darwin notification instead
/// (`NotifyCenter.accountChanged`).
public enum AndroidBroker {
    /// MSAL Android's `CURRENT_ACCOUNT_CHANGED_BROADCAST_IDENTIFIER`.
    public static let accountChangedAction = "com.microsoft.identity.client.sharedmode.CURRENT_ACCOUNT_CHANGED"
}
