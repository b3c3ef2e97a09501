// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IPaymentRouter} from "./IPaymentRouter.sol";

/// @notice The ERC-3009 parts of Circle's FiatTokenV2_2 (USDC) that x402 uses: the `bytes signature` overload of
///         transferWithAuthorization (ECDSA for an EOA, ERC-1271 when `from` has code), the nonce state and the
///         token's EIP-712 domain.
interface IERC3009Transfer {
    /// @dev Anyone may submit it. Reverts unless block.timestamp is in (validAfter, validBefore), the nonce is
    ///      unused for `from`, the signature is valid, and neither party is blacklisted nor the token paused.
    function transferWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external;

    /// @dev True once `nonce` was used (or cancelled) by `authorizer`.
    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool);

    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32);
}

/// @title TransferAuthorization
/// @notice ERC-3009 TransferWithAuthorization to the calling contract, as the stock x402 `exact` client signs it:
///         pulled with an exact balance-delta check. (Funds someone else moved with it are proven from the
///         chain's receipts instead: ArrivalVerifier.)
library TransferAuthorization {
    /// @dev Submits the authorization to `token` and insists this contract received exactly `value`, so a token
    ///      that delivers less than it was asked for reverts the payment.
    function transferExact(
        address token,
        address from,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) internal {
        uint256 before = IERC20(token).balanceOf(address(this));
        IERC3009Transfer(token)
            .transferWithAuthorization(from, address(this), value, validAfter, validBefore, nonce, signature);
        uint256 received = IERC20(token).balanceOf(address(this)) - before;
        if (received != value) revert IPaymentRouter.BalanceDeltaMismatch(value, received);
    }
}
