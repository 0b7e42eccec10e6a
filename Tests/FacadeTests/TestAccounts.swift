@testable import MSAL

/// Accounts as the broker hands them, for parameters that need one outside a device.
enum TestAccounts {
    static var cou1: MSALAccount {
        MSALAccount(
            username: "cou1", homeAccountID: "cou1-object.contoso-tenant", environment: "login.microsoftonline.com")
    }
}
