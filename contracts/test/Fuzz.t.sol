// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {SigUtils} from "./utils/SigUtils.sol";
import {RouterTestBase} from "./utils/RouterTestBase.sol";

contract FuzzTest is RouterTestBase {
    uint256 internal constant MAX_AMOUNT = 1e15; // 1,000,000,000 USDC, the API's ceiling

    /// The four shares always add up to what the buyer paid, for every amount and every bps split the API
    /// can produce (service + platform ≤ 10000, reserve of the gross ≤ 10000).
    function testFuzz_SplitSums(uint256 amount, uint256 serviceBps, uint256 platformBps, uint256 reserveBps) public {
        amount = bound(amount, 1, MAX_AMOUNT);
        serviceBps = bound(serviceBps, 0, 10_000);
        platformBps = bound(platformBps, 0, 10_000 - serviceBps);
        reserveBps = bound(reserveBps, 0, 10_000);
        IPaymentRouter.PayOrder memory o = splitOrder(address(usdc), amount, serviceBps, platformBps, reserveBps);
        uint256 buyerBefore = bal(buyer);

        pay(o);

        uint256 merchantGot = bal(merchant);
        vm.assertEq(buyerBefore - bal(buyer), amount, "buyer paid exactly amount");
        vm.assertEq(bal(treasury) + bal(platform) + merchantGot + bal(address(router)), amount, "shares sum");
        vm.assertEq(bal(treasury), o.serviceFee, "service fee");
        vm.assertEq(bal(platform), o.platformFee, "platform fee");
        vm.assertEq(bal(address(router)), o.reserveHold, "reserve held");
        vm.assertEq(merchantGot, amount - o.serviceFee - o.platformFee - o.reserveHold, "merchant available");
    }

    /// A refund is paid from the reserve first and only the remainder from the submitter, and the
    /// recipient always gets exactly the refund amount.
    function testFuzz_RefundSplit(uint256 reserveBps, uint256 refundAmount) public {
        reserveBps = bound(reserveBps, 0, 10_000);
        IPaymentRouter.PayOrder memory o = splitOrder(address(usdc), 100e6, 100, 500, reserveBps);
        pay(o);
        refundAmount = bound(refundAmount, 1, o.amount);
        IPaymentRouter.RefundOrder memory r = refundOrder(o.orderId, refundAmount);
        address funder = makeAddr("funder");
        usdc.mint(funder, o.amount);
        uint256 buyerBefore = bal(buyer);
        vm.startPrank(funder);
        usdc.approve(address(router), type(uint256).max);
        router.refund(r, sign(r));
        vm.stopPrank();

        uint256 fromReserve = refundAmount < o.reserveHold ? refundAmount : o.reserveHold;
        vm.assertEq(bal(buyer) - buyerBefore, refundAmount, "recipient gets the amount");
        vm.assertEq(o.amount - bal(funder), refundAmount - fromReserve, "submitter funds the rest");
        vm.assertEq(bal(address(router)), o.reserveHold - fromReserve, "reserve spent first");
        vm.assertEq(router.orders(o.orderId).reserve, o.reserveHold - fromReserve, "books follow");
    }

    /// No key other than an authorised signer's can authorise a payment.
    function testFuzz_RevertWhen_UnauthorisedKey(uint256 key) public {
        key = bound(key, 1, SigUtils.SECP256K1_N - 1);
        vm.assume(key != SIGNER_KEY);
        IPaymentRouter.PayOrder memory o = defaultOrder();
        bytes memory sig = SigUtils.signPay(key, o, address(router));
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.InvalidSigner.selector, vm.addr(key)));
        vm.prank(buyer);
        router.payOrder(o, sig);
    }
}
