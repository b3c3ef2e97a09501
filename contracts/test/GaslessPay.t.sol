// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {PaymentRouter} from "../src/PaymentRouter.sol";
import {AuthUtils} from "./utils/AuthUtils.sol";
import {CircleUSDC, IFiatTokenV2_2} from "./utils/CircleUSDC.sol";
import {GaslessTestBase} from "./utils/GaslessTestBase.sol";
import {SigUtils} from "./utils/SigUtils.sol";

/// @notice payOrderWithAuthorization against Circle's real FiatTokenV2_2 (USDC) behind its FiatTokenProxy.
contract GaslessPayTest is GaslessTestBase {
    struct Books {
        uint256 payer;
        uint256 router;
        uint256 treasury;
        uint256 platform;
        uint256 merchant;
        uint256 relayer;
        uint256 reserved;
    }

    function books(address from) internal view returns (Books memory) {
        return Books(
            fbal(from),
            fbal(address(router)),
            fbal(treasury),
            fbal(platform),
            fbal(merchant),
            fbal(relayer),
            router.reserved(address(fiat))
        );
    }

    /// @dev A refused payment moved nothing: every balance as before, the order unpaid, the nonce unused.
    function assertNothingMoved(Books memory b, IPaymentRouter.PayOrder memory o, AuthUtils.Authorization memory a)
        internal
        view
    {
        Books memory n = books(a.from);
        vm.assertEq(n.payer, b.payer, "payer balance");
        vm.assertEq(n.router, b.router, "router balance");
        vm.assertEq(n.treasury, b.treasury, "treasury balance");
        vm.assertEq(n.platform, b.platform, "platform balance");
        vm.assertEq(n.merchant, b.merchant, "merchant balance");
        vm.assertEq(n.reserved, b.reserved, "reserved");
        vm.assertFalse(router.orders(o.orderId).paid, "order stays unpaid");
        vm.assertFalse(fiat.authorizationState(a.from, a.nonce), "nonce stays unused");
    }

    function test_tokenIsCircleUSDCAsOnBaseSepolia() public view {
        vm.assertEq(keccak256(bytes(fiat.name())), keccak256("USDC"), "name");
        vm.assertEq(keccak256(bytes(fiat.symbol())), keccak256("USDC"), "symbol");
        vm.assertEq(keccak256(bytes(fiat.version())), keccak256("2"), "version");
        vm.assertEq(uint256(fiat.decimals()), 6, "decimals");
        vm.assertEq(fbal(payer), FUNDS, "minted");
        AuthUtils.tokenDomain(fiat); // reverts unless name/version/chain/address rebuild DOMAIN_SEPARATOR()
    }

    function test_gasless_splitsAndReservesExactlyAsPayOrder() public {
        IPaymentRouter.PayOrder memory o = fiatOrder(123_456_789);
        AuthUtils.Authorization memory a = authFor(payer, o);
        bytes memory authSig = signAuth(PAYER_KEY, a);
        Books memory b = books(payer);

        // The same order paid the classic way, from the same state.
        uint256 snap = vm.snapshotState();
        vm.startPrank(payer);
        fiat.approve(address(router), o.amount);
        router.payOrder(o, sign(o));
        vm.stopPrank();
        Books memory classic = books(payer);
        IPaymentRouter.Order memory classicOrder = router.orders(o.orderId);
        vm.revertToState(snap);

        vm.expectEmit();
        emit IPaymentRouter.OrderPaid(
            o.orderId,
            payer,
            merchant,
            address(fiat),
            o.amount,
            o.serviceFee,
            o.platformFee,
            o.reserveHold,
            platform,
            block.timestamp + HOLD
        );
        relay(o, a, authSig);
        Books memory gasless = books(payer);
        IPaymentRouter.Order memory gaslessOrder = router.orders(o.orderId);

        vm.assertEq(gasless.payer, classic.payer, "payer debited alike");
        vm.assertEq(b.payer - gasless.payer, o.amount, "payer debited exactly the amount");
        vm.assertEq(gasless.treasury, classic.treasury, "service fee");
        vm.assertEq(gasless.platform, classic.platform, "platform fee");
        vm.assertEq(gasless.merchant, classic.merchant, "merchant share");
        vm.assertEq(gasless.router, classic.router, "router holds the reserve");
        vm.assertEq(gasless.reserved, classic.reserved, "reserved");
        vm.assertEq(gasless.router, o.reserveHold, "router holds only the reserve");
        vm.assertEq(gasless.relayer, 0, "relayer receives nothing");
        vm.assertEq(gaslessOrder.payer, payer, "from recorded as payer");
        vm.assertEq(gaslessOrder.payer, classicOrder.payer, "same payer as payOrder by from");
        vm.assertEq(gaslessOrder.reserve, classicOrder.reserve, "order reserve");
        vm.assertEq(gaslessOrder.amount, classicOrder.amount, "order amount");
        vm.assertEq(gaslessOrder.releaseAfter, classicOrder.releaseAfter, "release time");
        vm.assertEq(gaslessOrder.merchant, classicOrder.merchant, "merchant");
        vm.assertTrue(gaslessOrder.paid, "paid");
        vm.assertTrue(fiat.authorizationState(payer, a.nonce), "nonce burnt");
    }

    function test_gasless_refundGoesBackToFrom() public {
        IPaymentRouter.PayOrder memory o = fiatOrder(50e6);
        AuthUtils.Authorization memory a = authFor(payer, o);
        relay(o, a, signAuth(PAYER_KEY, a));
        IPaymentRouter.RefundOrder memory r = refundOrder(o.orderId, o.reserveHold);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.RefundNotToPayer.selector, payer, buyer));
        router.refund(r, sign(r));
        r.to = payer;
        uint256 before = fbal(payer);
        router.refund(r, sign(r));
        vm.assertEq(fbal(payer) - before, o.reserveHold, "refund to from");
    }

    function test_gasless_payerLockedOrder() public {
        IPaymentRouter.PayOrder memory o = fiatOrder(10e6);
        o.payer = payer;
        // Someone else's authorization for a payer-locked order.
        uint256 otherKey = 0xD00D;
        address other = vm.addr(otherKey);
        mintTo(other, 100e6);
        AuthUtils.Authorization memory a = authFor(other, o);
        Books memory b = books(other);
        expectRelayRevert(
            abi.encodeWithSelector(IPaymentRouter.WrongPayer.selector, payer, other), o, a, signAuth(otherKey, a)
        );
        assertNothingMoved(b, o, a);
        // The locked payer's own authorization, relayed by a stranger: accepted.
        a = authFor(payer, o);
        relay(o, a, signAuth(PAYER_KEY, a));
        vm.assertEq(router.orders(o.orderId).payer, payer, "payer");
    }

    function test_refuses_authorizationForAnotherOrder() public {
        IPaymentRouter.PayOrder memory o = fiatOrder(10e6);
        IPaymentRouter.PayOrder memory other = fiatOrder(10e6); // same amount and split, another id
        AuthUtils.Authorization memory a = authFor(payer, other);
        bytes memory authSig = signAuth(PAYER_KEY, a);
        Books memory b = books(payer);
        // Relayed as is: the nonce is not this order's.
        expectRelayRevert(
            abi.encodeWithSelector(IPaymentRouter.AuthorizationNotForOrder.selector, router.hashPayOrder(o), a.nonce),
            o,
            a,
            authSig
        );
        // Relayed with this order's nonce: the buyer never signed that.
        AuthUtils.Authorization memory forged = a;
        forged.nonce = router.hashPayOrder(o);
        expectRelayRevert(bytes("FiatTokenV2: invalid signature"), o, forged, authSig);
        assertNothingMoved(b, o, forged);
        // The same order id with another split (re-signed by the service) is another order too.
        IPaymentRouter.PayOrder memory resplit = other;
        resplit.platformFee += 1;
        expectRelayRevert(
            abi.encodeWithSelector(
                IPaymentRouter.AuthorizationNotForOrder.selector, router.hashPayOrder(resplit), a.nonce
            ),
            resplit,
            a,
            authSig
        );
        assertNothingMoved(b, other, a);
    }

    function test_refuses_anotherAmount() public {
        IPaymentRouter.PayOrder memory o = fiatOrder(10e6);
        AuthUtils.Authorization memory a = authFor(payer, o);
        a.value = o.amount - 1;
        Books memory b = books(payer);
        expectRelayRevert(bytes("FiatTokenV2: invalid signature"), o, a, signAuth(PAYER_KEY, a));
        a.value = o.amount + 1;
        expectRelayRevert(bytes("FiatTokenV2: invalid signature"), o, a, signAuth(PAYER_KEY, a));
        assertNothingMoved(b, o, a);
    }

    function test_refuses_anotherRouter() public {
        PaymentRouter router2 = new PaymentRouter(owner, signer, operator, treasury, HOLD);
        IPaymentRouter.PayOrder memory o = fiatOrder(10e6);
        // The buyer authorised router2 (to = router2, nonce = router2's digest of the order).
        AuthUtils.Authorization memory a = authFor(payer, o);
        a.to = address(router2);
        a.nonce = router2.hashPayOrder(o);
        bytes memory authSig = signAuth(PAYER_KEY, a);
        Books memory b = books(payer);
        expectRelayRevert(
            abi.encodeWithSelector(IPaymentRouter.AuthorizationNotForOrder.selector, router.hashPayOrder(o), a.nonce),
            o,
            a,
            authSig
        );
        // With this router's nonce the signed `to` (router2) still differs from the caller.
        a.nonce = router.hashPayOrder(o);
        expectRelayRevert(bytes("FiatTokenV2: invalid signature"), o, a, authSig);
        assertNothingMoved(b, o, a);
    }

    function test_refuses_anotherToken() public {
        IFiatTokenV2_2 fiat2 = CircleUSDC.deploy(roles); // a second USDC: another EIP-712 domain
        address[] memory holders = new address[](1);
        holders[0] = payer;
        CircleUSDC.mint(fiat2, roles.masterMinter, makeAddr("minter2"), holders, FUNDS);
        IPaymentRouter.PayOrder memory o = splitOrder(address(fiat2), 10e6, 100, 500, 1000);
        AuthUtils.Authorization memory a = authFor(payer, o);
        bytes memory signedForFiat = AuthUtils.sign(PAYER_KEY, fiat, a); // signed over the first token's domain
        uint256 before2 = fiat2.balanceOf(payer);
        Books memory b = books(payer);
        expectRelayRevert(bytes("FiatTokenV2: invalid signature"), o, a, signedForFiat);
        vm.assertEq(fiat2.balanceOf(payer), before2, "nothing moved on the order's token");
        assertNothingMoved(b, o, a);
        // And an order for a token without ERC-3009 cannot be paid this way at all.
        IPaymentRouter.PayOrder memory plain = defaultOrder();
        a = authFor(buyer, plain);
        expectRelayRevert(bytes(""), plain, a, AuthUtils.sign(BUYER_KEY, fiat, a));
    }

    function test_refuses_replay() public {
        IPaymentRouter.PayOrder memory o = fiatOrder(10e6);
        AuthUtils.Authorization memory a = authFor(payer, o);
        bytes memory authSig = signAuth(PAYER_KEY, a);
        relay(o, a, authSig);
        Books memory b = books(payer);
        expectRelayRevert(abi.encodeWithSelector(IPaymentRouter.AlreadyPaid.selector, o.orderId), o, a, authSig);
        // Nor can the order be paid again the classic way.
        vm.startPrank(payer);
        fiat.approve(address(router), o.amount);
        bytes memory sig = sign(o);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.AlreadyPaid.selector, o.orderId));
        router.payOrder(o, sig);
        vm.stopPrank();
        // Nor replayed straight at the token by anybody but the router.
        vm.prank(relayer);
        vm.expectRevert(bytes("FiatTokenV2: caller must be the payee"));
        fiat.receiveWithAuthorization(a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, authSig);
        vm.prank(address(router));
        vm.expectRevert(bytes("FiatTokenV2: authorization is used or canceled"));
        fiat.receiveWithAuthorization(a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, authSig);
        Books memory n = books(payer);
        vm.assertEq(n.payer, b.payer, "payer untouched by the replays");
        vm.assertEq(n.router, b.router, "router untouched by the replays");
    }

    function test_refuses_frontRunIntoPlainTransfer() public {
        IPaymentRouter.PayOrder memory o = fiatOrder(10e6);
        AuthUtils.Authorization memory a = authFor(payer, o);
        bytes memory authSig = signAuth(PAYER_KEY, a);
        Books memory b = books(payer);
        // Copied from the mempool: receiveWithAuthorization only by the payee; a transfer needs another type.
        vm.prank(relayer);
        vm.expectRevert(bytes("FiatTokenV2: caller must be the payee"));
        fiat.receiveWithAuthorization(a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, authSig);
        vm.prank(relayer);
        vm.expectRevert(bytes("FiatTokenV2: invalid signature"));
        fiat.transferWithAuthorization(a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, authSig);
        assertNothingMoved(b, o, a);
        relay(o, a, authSig); // still good for the order
        vm.assertTrue(router.orders(o.orderId).paid, "paid");
    }

    function test_refuses_cancelledAuthorization() public {
        // The buyer may withdraw an unused authorization at the token (Circle's cancelAuthorization).
        IPaymentRouter.PayOrder memory o = fiatOrder(10e6);
        AuthUtils.Authorization memory a = authFor(payer, o);
        bytes memory authSig = signAuth(PAYER_KEY, a);
        bytes32 cancelHash = keccak256(
            abi.encodePacked(
                "\x19\x01",
                AuthUtils.tokenDomain(fiat),
                keccak256(
                    abi.encode(keccak256("CancelAuthorization(address authorizer,bytes32 nonce)"), payer, a.nonce)
                )
            )
        );
        (bool ok,) = address(fiat)
            .call(
                abi.encodeWithSignature(
                    "cancelAuthorization(address,bytes32,bytes)", payer, a.nonce, SigUtils.sign(PAYER_KEY, cancelHash)
                )
            );
        vm.assertTrue(ok, "cancelAuthorization");
        Books memory b = books(payer);
        expectRelayRevert(bytes("FiatTokenV2: authorization is used or canceled"), o, a, authSig);
        vm.assertEq(fbal(payer), b.payer, "nothing moved");
        vm.assertFalse(router.orders(o.orderId).paid, "unpaid");
    }

    function test_refuses_expiredAndNotYetValid() public {
        IPaymentRouter.PayOrder memory o = fiatOrder(10e6);
        AuthUtils.Authorization memory a = authFor(payer, o);
        Books memory b = books(payer);
        // Valid only until 10 minutes from now; relayed at that second: expired (validBefore is exclusive).
        a.validBefore = block.timestamp + 10 minutes;
        bytes memory authSig = signAuth(PAYER_KEY, a);
        vm.warp(a.validBefore);
        expectRelayRevert(bytes("FiatTokenV2: authorization is expired"), o, a, authSig);
        assertNothingMoved(b, o, a);
        // Not valid before a second in the future.
        a = authFor(payer, o);
        a.validAfter = block.timestamp;
        authSig = signAuth(PAYER_KEY, a);
        expectRelayRevert(bytes("FiatTokenV2: authorization is not yet valid"), o, a, authSig);
        assertNothingMoved(b, o, a);
        vm.warp(block.timestamp + 1);
        relay(o, a, authSig);
        vm.assertTrue(router.orders(o.orderId).paid, "paid once valid");
    }

    function test_validBeforeBoundedByDeadline() public {
        IPaymentRouter.PayOrder memory o = fiatOrder(10e6);
        AuthUtils.Authorization memory a = authFor(payer, o);
        a.validBefore = o.deadline + 2;
        Books memory b = books(payer);
        expectRelayRevert(
            abi.encodeWithSelector(IPaymentRouter.AuthorizationOutlivesOrder.selector, a.validBefore, o.deadline),
            o,
            a,
            signAuth(PAYER_KEY, a)
        );
        a.validBefore = type(uint256).max;
        expectRelayRevert(
            abi.encodeWithSelector(IPaymentRouter.AuthorizationOutlivesOrder.selector, a.validBefore, o.deadline),
            o,
            a,
            signAuth(PAYER_KEY, a)
        );
        assertNothingMoved(b, o, a);
        // validBefore = deadline + 1 works up to and including the deadline second.
        a.validBefore = o.deadline + 1;
        bytes memory authSig = signAuth(PAYER_KEY, a);
        vm.warp(o.deadline);
        relay(o, a, authSig);
        vm.assertTrue(router.orders(o.orderId).paid, "paid at the deadline");
    }

    function test_refuses_expiredOrder() public {
        IPaymentRouter.PayOrder memory o = fiatOrder(10e6);
        AuthUtils.Authorization memory a = authFor(payer, o);
        bytes memory authSig = signAuth(PAYER_KEY, a);
        vm.warp(o.deadline + 1);
        expectRelayRevert(
            abi.encodeWithSelector(IPaymentRouter.OrderExpired.selector, o.deadline, o.deadline + 1), o, a, authSig
        );
    }

    function test_refuses_signatureBySomeoneElse() public {
        IPaymentRouter.PayOrder memory o = fiatOrder(10e6);
        AuthUtils.Authorization memory a = authFor(payer, o);
        Books memory b = books(payer);
        expectRelayRevert(bytes("FiatTokenV2: invalid signature"), o, a, signAuth(OTHER_KEY, a));
        // Malformed: wrong length.
        expectRelayRevert(bytes("ECRecover: invalid signature length"), o, a, hex"1234");
        assertNothingMoved(b, o, a);
        // And a PayOrder not signed by a service signer.
        bytes memory authSig = signAuth(PAYER_KEY, a);
        bytes memory badOrderSig = SigUtils.sign(OTHER_KEY, router.hashPayOrder(o));
        vm.prank(relayer);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.InvalidSigner.selector, vm.addr(OTHER_KEY)));
        router.payOrderWithAuthorization(o, badOrderSig, payer, 0, a.validBefore, a.nonce, authSig);
        // from = address(0) is refused before the token is asked.
        expectRelayRevert(
            abi.encodeWithSelector(IPaymentRouter.ZeroAddress.selector),
            o,
            AuthUtils.Authorization(address(0), a.to, a.value, 0, a.validBefore, a.nonce),
            authSig
        );
        assertNothingMoved(b, o, a);
    }

    function test_refuses_cancelledOrder() public {
        IPaymentRouter.PayOrder memory o = fiatOrder(10e6);
        vm.prank(operator);
        router.cancelOrders(ids1(o.orderId));
        AuthUtils.Authorization memory a = authFor(payer, o);
        Books memory b = books(payer);
        expectRelayRevert(
            abi.encodeWithSelector(IPaymentRouter.OrderCancelled.selector, o.orderId), o, a, signAuth(PAYER_KEY, a)
        );
        assertNothingMoved(b, o, a);
    }

    function test_refuses_pausedRouter() public {
        IPaymentRouter.PayOrder memory o = fiatOrder(10e6);
        AuthUtils.Authorization memory a = authFor(payer, o);
        bytes memory authSig = signAuth(PAYER_KEY, a);
        vm.prank(owner);
        router.pause();
        Books memory b = books(payer);
        expectRelayRevert(abi.encodeWithSignature("EnforcedPause()"), o, a, authSig);
        assertNothingMoved(b, o, a);
        vm.prank(owner);
        router.unpause();
        relay(o, a, authSig);
        vm.assertTrue(router.orders(o.orderId).paid, "paid after unpause");
    }

    function test_refuses_blacklistedPayer_nothingMoved() public {
        IPaymentRouter.PayOrder memory o = fiatOrder(10e6);
        AuthUtils.Authorization memory a = authFor(payer, o);
        bytes memory authSig = signAuth(PAYER_KEY, a);
        vm.prank(roles.blacklister);
        fiat.blacklist(payer);
        Books memory b = books(payer);
        expectRelayRevert(bytes("Blacklistable: account is blacklisted"), o, a, authSig);
        assertNothingMoved(b, o, a);
        vm.prank(roles.blacklister);
        fiat.unBlacklist(payer);
        relay(o, a, authSig); // the same authorization is still good once the payer is cleared
        vm.assertTrue(router.orders(o.orderId).paid, "paid after unblacklist");
    }

    function test_refuses_blacklistedMerchant_nothingMoved() public {
        IPaymentRouter.PayOrder memory o = fiatOrder(10e6);
        AuthUtils.Authorization memory a = authFor(payer, o);
        bytes memory authSig = signAuth(PAYER_KEY, a);
        vm.prank(roles.blacklister);
        fiat.blacklist(merchant);
        Books memory b = books(payer);
        expectRelayRevert(bytes("Blacklistable: account is blacklisted"), o, a, authSig);
        assertNothingMoved(b, o, a);
    }

    function test_refuses_pausedToken_nothingMoved() public {
        IPaymentRouter.PayOrder memory o = fiatOrder(10e6);
        AuthUtils.Authorization memory a = authFor(payer, o);
        bytes memory authSig = signAuth(PAYER_KEY, a);
        vm.prank(roles.pauser);
        fiat.pause();
        Books memory b = books(payer);
        expectRelayRevert(bytes("Pausable: paused"), o, a, authSig);
        assertNothingMoved(b, o, a);
        vm.prank(roles.pauser);
        fiat.unpause();
        relay(o, a, authSig);
        vm.assertTrue(router.orders(o.orderId).paid, "paid after unpause");
    }
}

