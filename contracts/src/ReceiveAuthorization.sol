// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IPaymentRouter} from "./IPaymentRouter.sol";

/// @notice The ERC-3009 entry point of Circle's FiatTokenV2_2 (USDC) that the router uses: the `bytes signature`
///         overload, which checks an EOA's ECDSA signature or, when `from` has code, asks it via ERC-1271.
interface IERC3009Receive {
    /// @dev Reverts unless msg.sender == to, block.timestamp is in (validAfter, validBefore), the nonce is unused
    ///      for `from`, the signature is valid, and neither party is blacklisted nor the token paused.
    function receiveWithAuthorization(
        address from,
        address to,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) external;
}

/// @title ReceiveAuthorization
/// @notice Pulls a payment into the calling contract with the payer's ERC-3009 ReceiveWithAuthorization.
library ReceiveAuthorization {
    /// @dev Receives exactly `value` of `token` from `from` into this contract. Because ERC-3009's receive form
    ///      lets only `to` (this contract) submit the authorization, nobody who sees it in the mempool can turn
    ///      it into a plain transfer. The balance delta is checked like the router's allowance pull, so a token
    ///      that delivers less than it was asked for reverts the payment.
    function receiveExact(
        address token,
        address from,
        uint256 value,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata signature
    ) internal {
        uint256 before = IERC20(token).balanceOf(address(this));
        IERC3009Receive(token)
            .receiveWithAuthorization(from, address(this), value, validAfter, validBefore, nonce, signature);
        uint256 received = IERC20(token).balanceOf(address(this)) - before;
        if (received != value) revert IPaymentRouter.BalanceDeltaMismatch(value, received);
    }
}
