// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {DepositFactory} from "../../src/DepositFactory.sol";
import {DepositForwarder} from "../../src/DepositForwarder.sol";
import {DepositTerms} from "../../src/IDepositForwarder.sol";
import {IPaymentRouter} from "../../src/IPaymentRouter.sol";
import {SigUtils} from "./SigUtils.sol";
import {GaslessTestBase} from "./GaslessTestBase.sol";

/// @notice GaslessTestBase (real router, Circle's real USDC) plus a DepositFactory and helpers that build deposit
///         terms and sign the PayOrder the way the service must: payer = the predicted deposit address.
abstract contract DepositTestBase is GaslessTestBase {
    DepositFactory internal factory;
    address internal refundTo;

    function setUp() public virtual override {
        super.setUp();
        factory = new DepositFactory(address(router));
        refundTo = makeAddr("refundTo");
    }

    /// @dev The split of fiatOrder(amount) (1% service, 5% platform, 10% reserve; deadline now + 1 h).
    function depositTerms(uint256 amount) internal returns (DepositTerms memory) {
        return termsOf(fiatOrder(amount));
    }

    function termsOf(IPaymentRouter.PayOrder memory o) internal pure returns (DepositTerms memory) {
        return DepositTerms({
            orderId: o.orderId,
            token: o.token,
            amount: o.amount,
            merchant: o.merchant,
            platform: o.platform,
            serviceFee: o.serviceFee,
            platformFee: o.platformFee,
            reserveHold: o.reserveHold,
            deadline: o.deadline
        });
    }

    /// @dev The router's PayOrder for `t` paid by `payer_` (captureDeadline 0).
    function payOrderOf(DepositTerms memory t, address payer_) internal pure returns (IPaymentRouter.PayOrder memory) {
        return IPaymentRouter.PayOrder({
            orderId: t.orderId,
            token: t.token,
            amount: t.amount,
            payer: payer_,
            merchant: t.merchant,
            platform: t.platform,
            serviceFee: t.serviceFee,
            platformFee: t.platformFee,
            reserveHold: t.reserveHold,
            deadline: t.deadline,
            captureDeadline: 0
        });
    }

    /// @dev What the service signs for a deposit address: the PayOrder with payer = factory.predict(t, refundTo).
    function depositSig(DepositTerms memory t) internal view returns (bytes memory) {
        return SigUtils.signPay(SIGNER_KEY, payOrderOf(t, factory.predict(t, refundTo)), address(router));
    }

    /// @dev The buyer's exchange makes a plain USDC transfer of `amount` to `to`.
    function send(address to, uint256 amount) internal {
        vm.prank(payer);
        fiat.transfer(to, amount);
    }

    function forwarder(address deposit) internal pure returns (DepositForwarder) {
        return DepositForwarder(deposit);
    }

    /// @dev Σ what the order's parties (treasury, platform, merchant, router reserve) hold.
    function partySum() internal view returns (uint256) {
        return fbal(treasury) + fbal(platform) + fbal(merchant) + fbal(address(router));
    }
}
