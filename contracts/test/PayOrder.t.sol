// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {SigUtils} from "./utils/SigUtils.sol";
import {RouterTestBase} from "./utils/RouterTestBase.sol";

contract PayOrderTest is RouterTestBase {
    function test_PayOrder() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        // 100 USDC: service 1.00, platform 5.00, gross 94.00, reserve 9.40, merchant now 84.60
        vm.assertEq(o.serviceFee, 1e6, "service fee");
        vm.assertEq(o.platformFee, 5e6, "platform fee");
        vm.assertEq(o.reserveHold, 9.4e6, "reserve");
        uint256 buyerBefore = bal(buyer);

        vm.expectEmit();
        emit IPaymentRouter.OrderPaid(
            o.orderId, buyer, merchant, address(usdc), 100e6, 1e6, 5e6, 9.4e6, platform, block.timestamp + 7 days
        );
        pay(o);

        vm.assertEq(buyerBefore - bal(buyer), 100e6, "buyer paid amount");
        vm.assertEq(bal(treasury), 1e6, "treasury");
        vm.assertEq(bal(platform), 5e6, "platform");
        vm.assertEq(bal(merchant), 84.6e6, "merchant available");
        vm.assertEq(bal(address(router)), 9.4e6, "router keeps the reserve");

        IPaymentRouter.Order memory rec = router.orders(o.orderId);
        vm.assertTrue(rec.paid, "paid");
        vm.assertEq(rec.token, address(usdc), "token");
        vm.assertEq(rec.payer, buyer, "payer");
        vm.assertEq(rec.merchant, merchant, "merchant");
        vm.assertEq(rec.amount, 100e6, "amount");
        vm.assertEq(rec.reserve, 9.4e6, "reserve recorded");
        vm.assertEq(rec.refunded, 0, "refunded");
    }

    function test_PayOrder_NamedPayer() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        o.payer = buyer;
        pay(o);
        vm.assertTrue(router.orders(o.orderId).paid, "paid by the named payer");
    }

    function test_PayOrder_AtDeadlineSecond() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        vm.warp(o.deadline);
        pay(o);
        vm.assertTrue(router.orders(o.orderId).paid, "deadline second is inclusive");
    }

    function test_PayOrder_AllFeesNoMerchantShare() public {
        // amount == serviceFee + platformFee + reserveHold is allowed (merchant gets 0 now)
        IPaymentRouter.PayOrder memory o = defaultOrder();
        o.serviceFee = 10e6;
        o.platformFee = 20e6;
        o.reserveHold = 70e6;
        pay(o);
        vm.assertEq(bal(merchant), 0, "nothing available now");
        vm.assertEq(bal(address(router)), 70e6, "reserve");
    }

    function test_HashPayOrderMatchesIndependentDigest() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        vm.assertEq(router.hashPayOrder(o), SigUtils.payDigest(o, block.chainid, address(router)), "digest");
        vm.assertEq(router.DOMAIN_SEPARATOR(), SigUtils.domainSeparator(block.chainid, address(router)), "domain");
    }

    function test_RevertWhen_BadSigner() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        bytes memory sig = SigUtils.signPay(OTHER_KEY, o, address(router));
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.InvalidSigner.selector, vm.addr(OTHER_KEY)));
        vm.prank(buyer);
        router.payOrder(o, sig);
    }

    function test_RevertWhen_TamperedOrder() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(SIGNER_KEY, SigUtils.payDigest(o, block.chainid, address(router)));
        o.amount = 1e6; // buyer tries to pay less than agreed: the signature now recovers a stranger
        address recovered = ecrecover(router.hashPayOrder(o), v, r, s);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.InvalidSigner.selector, recovered));
        vm.prank(buyer);
        router.payOrder(o, abi.encodePacked(r, s, v));
    }

    function test_RevertWhen_Expired() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        bytes memory sig = sign(o);
        vm.warp(o.deadline + 1);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.OrderExpired.selector, o.deadline, o.deadline + 1));
        vm.prank(buyer);
        router.payOrder(o, sig);
    }

    function test_RevertWhen_WrongPayer() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        o.payer = makeAddr("someone else");
        bytes memory sig = sign(o);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.WrongPayer.selector, o.payer, buyer));
        vm.prank(buyer);
        router.payOrder(o, sig);
    }

    function test_RevertWhen_AlreadyPaid() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        pay(o);
        bytes memory sig = sign(o);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.AlreadyPaid.selector, o.orderId));
        vm.prank(buyer);
        router.payOrder(o, sig);
    }

    function test_RevertWhen_SameOrderIdDifferentTerms() public {
        // Replay protection is by orderId: a second, differently signed message for the id is refused too.
        IPaymentRouter.PayOrder memory o = defaultOrder();
        pay(o);
        o.amount = 50e6;
        o.serviceFee = 0;
        o.platformFee = 0;
        o.reserveHold = 0;
        bytes memory sig = sign(o);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.AlreadyPaid.selector, o.orderId));
        vm.prank(buyer);
        router.payOrder(o, sig);
    }

    function test_RevertWhen_FeesExceedAmount() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        o.reserveHold = o.amount - o.serviceFee - o.platformFee + 1;
        bytes memory sig = sign(o);
        vm.expectRevert(
            abi.encodeWithSelector(
                IPaymentRouter.FeesExceedAmount.selector, o.amount, o.serviceFee, o.platformFee, o.reserveHold
            )
        );
        vm.prank(buyer);
        router.payOrder(o, sig);
    }

    function test_RevertWhen_FeesOverflow() public {
        // Huge fees whose sum wraps around must still be refused, not panic past the check.
        IPaymentRouter.PayOrder memory o = defaultOrder();
        o.serviceFee = 1;
        o.platformFee = type(uint256).max;
        bytes memory sig = sign(o);
        vm.expectRevert(
            abi.encodeWithSelector(
                IPaymentRouter.FeesExceedAmount.selector, o.amount, o.serviceFee, o.platformFee, o.reserveHold
            )
        );
        vm.prank(buyer);
        router.payOrder(o, sig);
    }

    function test_RevertWhen_ZeroAmount() public {
        IPaymentRouter.PayOrder memory o = splitOrder(address(usdc), 0, 0, 0, 0);
        bytes memory sig = sign(o);
        vm.expectRevert(IPaymentRouter.ZeroAmount.selector);
        vm.prank(buyer);
        router.payOrder(o, sig);
    }

    function test_RevertWhen_ZeroMerchant() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        o.merchant = address(0);
        bytes memory sig = sign(o);
        vm.expectRevert(IPaymentRouter.ZeroAddress.selector);
        vm.prank(buyer);
        router.payOrder(o, sig);
    }

    function test_RevertWhen_Paused() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        bytes memory sig = sign(o);
        vm.prank(owner);
        router.pause();
        vm.expectRevert(Pausable.EnforcedPause.selector);
        vm.prank(buyer);
        router.payOrder(o, sig);

        vm.prank(owner);
        router.unpause();
        vm.prank(buyer);
        router.payOrder(o, sig);
        vm.assertTrue(router.orders(o.orderId).paid, "pays after unpause");
    }

    function test_RevertWhen_NoAllowance() public {
        IPaymentRouter.PayOrder memory o = defaultOrder();
        bytes memory sig = sign(o);
        address poorBuyer = makeAddr("no allowance");
        usdc.mint(poorBuyer, 100e6);
        vm.expectRevert(
            abi.encodeWithSelector(IERC20Errors.ERC20InsufficientAllowance.selector, address(router), 0, 100e6)
        );
        vm.prank(poorBuyer);
        router.payOrder(o, sig);
        vm.assertEq(bal(poorBuyer), 100e6, "buyer keeps funds");
        vm.assertFalse(router.orders(o.orderId).paid, "still payable");
    }

    function test_PayOrderWithPermit() public {
        address permitBuyer = vm.addr(0xCAFE);
        usdc.mint(permitBuyer, 100e6);
        IPaymentRouter.PayOrder memory o = defaultOrder();
        bytes memory sig = sign(o);
        (uint8 v, bytes32 r, bytes32 s) = _permit(0xCAFE, o.amount, block.timestamp + 600);

        vm.prank(permitBuyer);
        router.payOrderWithPermit(o, sig, block.timestamp + 600, v, r, s);
        vm.assertEq(bal(permitBuyer), 0, "buyer paid in one tx");
        vm.assertEq(bal(address(router)), o.reserveHold, "reserve held");
        vm.assertEq(router.orders(o.orderId).payer, permitBuyer, "payer recorded");
    }

    function test_PayOrderWithPermit_FrontRunPermitTolerated() public {
        address permitBuyer = vm.addr(0xCAFE);
        usdc.mint(permitBuyer, 100e6);
        IPaymentRouter.PayOrder memory o = defaultOrder();
        bytes memory sig = sign(o);
        uint256 deadline = block.timestamp + 600;
        (uint8 v, bytes32 r, bytes32 s) = _permit(0xCAFE, o.amount, deadline);
        // Someone copies the permit from the mempool and submits it first.
        usdc.permit(permitBuyer, address(router), o.amount, deadline, v, r, s);

        vm.prank(permitBuyer);
        router.payOrderWithPermit(o, sig, deadline, v, r, s);
        vm.assertTrue(router.orders(o.orderId).paid, "paid on the allowance the permit left");
    }

    function test_RevertWhen_PermitInvalidAndNoAllowance() public {
        address permitBuyer = vm.addr(0xCAFE);
        usdc.mint(permitBuyer, 100e6);
        IPaymentRouter.PayOrder memory o = defaultOrder();
        bytes memory sig = sign(o);
        (uint8 v, bytes32 r, bytes32 s) = _permit(0xBAD, o.amount, block.timestamp + 600);
        // The bad permit is swallowed; the missing allowance is what stops the payment.
        vm.expectRevert(
            abi.encodeWithSelector(IERC20Errors.ERC20InsufficientAllowance.selector, address(router), 0, o.amount)
        );
        vm.prank(permitBuyer);
        router.payOrderWithPermit(o, sig, block.timestamp + 600, v, r, s);
    }

    function _permit(uint256 key, uint256 value, uint256 deadline) private view returns (uint8, bytes32, bytes32) {
        address holder = vm.addr(key);
        bytes32 digest = SigUtils.permitDigest(
            usdc.DOMAIN_SEPARATOR(), holder, address(router), value, usdc.nonces(holder), deadline
        );
        return vm.sign(key, digest);
    }
}
