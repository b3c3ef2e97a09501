// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {EscrowTestBase} from "./utils/EscrowTestBase.sol";
import {SigUtils} from "./utils/SigUtils.sol";

/// @notice Key theft against held funds. With the operator key only, an attacker can move an authorization only
///         to the parties the service signed (each leg at most one base unit from the service's split of the
///         captured amount) or back to the payer. With the signer key only, a freshly signed PayOrder for the
///         same id captures nothing (AuthorizationMismatch). The stored digest pins the parties even with both.
contract EscrowKeysTest is EscrowTestBase {
    IPaymentRouter.PayOrder internal o;
    address internal attacker;

    function setUp() public override {
        super.setUp();
        attacker = makeAddr("attacker");
        o = defaultAuth();
        authorize(o);
    }

    /// @dev The same id, signed anew by the (stolen) signer key, paying the attacker every leg.
    function forged() internal view returns (IPaymentRouter.PayOrder memory f) {
        f = copyOrder(o);
        f.merchant = attacker;
        f.platform = attacker;
        f.serviceFee = 0;
        f.platformFee = 99e6;
        f.reserveHold = 0;
    }

    function test_SignerKeyOnly_FreshOrderSameId_CaptureMismatch() public {
        IPaymentRouter.PayOrder memory f = forged();
        bytes memory sig = SigUtils.signPay(SIGNER_KEY, f, address(router));
        // It cannot be paid (the id is spent), nor captured by the attacker, nor by the operator fed it.
        vm.prank(attacker);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.AlreadyPaid.selector, o.orderId));
        router.payOrder(f, sig);
        vm.prank(attacker);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.NotOperator.selector, attacker));
        router.capture(f, 100e6, 0, 99e6, 0);
        expectCaptureRevert(
            abi.encodeWithSelector(IPaymentRouter.AuthorizationMismatch.selector, o.orderId),
            f,
            100e6,
            Split(0, 99e6, 0)
        );
        // A signed refund of the held funds is refused too: nothing is captured.
        IPaymentRouter.RefundOrder memory r = refundOrder(o.orderId, 100e6);
        bytes memory rsig = sign(r);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.NotCaptured.selector, o.orderId));
        router.refund(r, rsig);
        vm.assertEq(bal(attacker), 0, "attacker");
        vm.assertEq(router.held(address(usdc)), 100e6, "still held");
    }

    /// Operator and signer keys together still cannot redirect a held authorization.
    function test_BothKeys_CannotRedirectHeldFunds() public {
        IPaymentRouter.PayOrder memory f = forged();
        expectCaptureRevert(
            abi.encodeWithSelector(IPaymentRouter.AuthorizationMismatch.selector, o.orderId),
            f,
            100e6,
            Split(0, 99e6, 0)
        );
        vm.prank(operator);
        router.voidAuthorization(o.orderId);
        vm.assertEq(bal(attacker), 0, "attacker");
        vm.assertEq(router.orders(o.orderId).payer, buyer, "payer");
    }

    function test_OperatorKeyOnly_VoidAndReclaimPayOnlyThePayer() public {
        IPaymentRouter.PayOrder memory other = defaultAuth();
        authorize(other);
        uint256 buyerBefore = bal(buyer);
        vm.prank(operator);
        router.voidAuthorization(o.orderId);
        vm.warp(other.captureDeadline);
        vm.prank(attacker);
        router.reclaim(other.orderId);
        vm.assertEq(bal(buyer) - buyerBefore, 200e6, "both back to the payer");
        vm.assertEq(bal(attacker) + bal(operator), 0, "nothing to the callers");
    }

    /// The operator key alone, any captured amount and any split it likes: either refused with nothing moved,
    /// or every unit of A went to treasury, platform, merchant (now or as reserve) and payer, each fee leg at
    /// most one unit from the service's split of c and the merchant's total at most two.
    function testFuzz_OperatorKeyOnly_MovesHeldFundsOnlyToSignedParties(
        uint256 c,
        uint256 ds,
        uint256 dp,
        uint256 dr,
        uint256 redirect
    ) public {
        c = bound(c, 1, o.amount);
        Split memory x = defaultSplit(c);
        Split memory y = Split(_nudge(x.serviceFee, ds), _nudge(x.platformFee, dp), _nudge(x.reserveHold, dr));
        IPaymentRouter.PayOrder memory submitted = copyOrder(o);
        redirect %= 6; // 0, 4, 5: the authorized order; 1-3: a party swapped for the attacker
        if (redirect > 3) redirect = 0;
        if (redirect == 1) submitted.merchant = attacker;
        if (redirect == 2) submitted.platform = attacker;
        if (redirect == 3) submitted.payer = attacker;

        Books memory b = booksOf(address(usdc), buyer);
        vm.prank(operator);
        (bool ok,) = address(router)
            .call(abi.encodeCall(router.capture, (submitted, c, y.serviceFee, y.platformFee, y.reserveHold)));
        Books memory n = booksOf(address(usdc), buyer);
        vm.assertEq(bal(attacker) + bal(operator), 0, "attacker and operator gain nothing");
        if (!ok) {
            assertSameBooks(n, b);
            return;
        }
        vm.assertEq(redirect, 0, "only the authorized order captures");
        uint256 gains = (n.payer - b.payer) + (n.treasury - b.treasury) + (n.platform - b.platform)
            + (n.merchant - b.merchant) + n.reserved;
        vm.assertEq(gains, o.amount, "every unit to a signed party or the payer");
        vm.assertEq(n.payer - b.payer, o.amount - c, "payer gets the uncaptured rest");
        vm.assertLe(_diff(n.treasury - b.treasury, x.serviceFee), 1, "service leg within one unit");
        vm.assertLe(_diff(n.platform - b.platform, x.platformFee), 1, "platform leg within one unit");
        uint256 merchantGross = c - x.serviceFee - x.platformFee;
        vm.assertLe(_diff(n.merchant - b.merchant + n.reserved, merchantGross), 2, "merchant within two units");
    }

    /// @dev value kept half the time (so some captures go through), else moved by -3, -1, +1 or +2.
    function _nudge(uint256 value, uint256 seed) internal pure returns (uint256) {
        uint256 d = seed % 8;
        if (d < 4) return value;
        if (d == 4) return value + 1;
        if (d == 5) return value + 2;
        if (d == 6) return value > 0 ? value - 1 : 0;
        return value > 3 ? value - 3 : 0;
    }

    function _diff(uint256 a, uint256 b) internal pure returns (uint256) {
        return a > b ? a - b : b - a;
    }
}
