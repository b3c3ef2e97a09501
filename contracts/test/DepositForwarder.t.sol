// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {Pausable} from "@openzeppelin/contracts/utils/Pausable.sol";
import {SafeTransferLib} from "solady/utils/SafeTransferLib.sol";
import {DepositFactory} from "../src/DepositFactory.sol";
import {DepositForwarder} from "../src/DepositForwarder.sol";
import {DepositTerms, IDepositForwarder} from "../src/IDepositForwarder.sol";
import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {SigUtils} from "./utils/SigUtils.sol";
import {DepositTestBase} from "./utils/DepositTestBase.sol";

interface IAllowance {
    function allowance(address owner, address spender) external view returns (uint256);
}

contract DepositForwarderTest is DepositTestBase {
    uint8 internal constant LATE = 1;
    uint8 internal constant SETTLED = 2;
    uint8 internal constant EXCESS = 3;
    uint8 internal constant OTHER_TOKEN = 4;

    // ---------------------------------------------------------------- addresses and the factory

    function test_predictEqualsDeployed_deployTwiceSameAddress() public {
        DepositTerms memory t = depositTerms(100e6);
        address predicted = factory.predict(t, refundTo);
        vm.assertEq(predicted.code.length, 0, "counterfactual: no code yet");

        vm.recordLogs();
        address deployed = factory.deploy(t, refundTo);
        vm.assertEq(countLogs(address(factory), DepositFactory.DepositDeployed.selector), 1, "one DepositDeployed");
        vm.assertEq(deployed, predicted, "deployed at the predicted address");
        vm.assertEq(deployed.code.length, 0x2d + 11 * 32, "LibClone runtime + 11 words of args");

        vm.recordLogs();
        vm.assertEq(factory.deploy(t, refundTo), predicted, "second deploy returns the same address");
        vm.assertEq(countLogs(address(factory), DepositFactory.DepositDeployed.selector), 0, "no second event");

        (address r, DepositTerms memory got, address rt) = forwarder(deployed).terms();
        vm.assertEq(r, address(router), "router arg");
        vm.assertEq(rt, refundTo, "refundTo arg");
        vm.assertEq(keccak256(abi.encode(got)), keccak256(abi.encode(t)), "terms args");
    }

    function test_addressCommitsToEveryTermAndRefundTo() public {
        DepositTerms memory t = depositTerms(100e6);
        address a = factory.predict(t, refundTo);
        vm.assertTrue(factory.predict(t, makeAddr("other refund")) != a, "refundTo");
        t.amount += 1;
        vm.assertTrue(factory.predict(t, refundTo) != a, "amount");
        t.amount -= 1;
        t.deadline += 1;
        vm.assertTrue(factory.predict(t, refundTo) != a, "deadline");
        t.deadline -= 1;
        vm.assertEq(factory.predict(t, refundTo), a, "same terms, same address");
        DepositFactory other = new DepositFactory(address(router));
        vm.assertTrue(other.predict(t, refundTo) != a, "another factory");
    }

    function test_factoryRefusesBadTerms() public {
        DepositTerms memory t = depositTerms(100e6);
        _expectRefused(t, address(0), abi.encodeWithSelector(DepositFactory.ZeroAddress.selector));
        _expectRefused(t, address(router), abi.encodeWithSelector(DepositFactory.BadRefundTo.selector, router));
        _expectRefused(t, address(factory), abi.encodeWithSelector(DepositFactory.BadRefundTo.selector, factory));
        address impl = factory.implementation();
        _expectRefused(t, impl, abi.encodeWithSelector(DepositFactory.BadRefundTo.selector, impl));

        DepositTerms memory bad = depositTerms(100e6);
        bad.amount = 0;
        bad.serviceFee = bad.platformFee = bad.reserveHold = 0;
        _expectRefused(bad, refundTo, abi.encodeWithSelector(DepositFactory.ZeroAmount.selector));
        bad = depositTerms(100e6);
        bad.merchant = address(0);
        _expectRefused(bad, refundTo, abi.encodeWithSelector(DepositFactory.ZeroAddress.selector));
        bad = depositTerms(100e6);
        bad.platform = address(0);
        _expectRefused(bad, refundTo, abi.encodeWithSelector(DepositFactory.ZeroAddress.selector));
        bad = depositTerms(100e6);
        bad.token = address(0);
        _expectRefused(bad, refundTo, abi.encodeWithSelector(DepositFactory.ZeroAddress.selector));
        bad = depositTerms(100e6);
        bad.reserveHold = bad.amount - bad.serviceFee - bad.platformFee + 1;
        _expectRefused(
            bad,
            refundTo,
            abi.encodeWithSelector(
                DepositFactory.FeesExceedAmount.selector, bad.amount, bad.serviceFee, bad.platformFee, bad.reserveHold
            )
        );
        bad = depositTerms(100e6);
        bad.serviceFee = type(uint256).max; // no overflow past the check
        _expectRefused(
            bad,
            refundTo,
            abi.encodeWithSelector(
                DepositFactory.FeesExceedAmount.selector, bad.amount, bad.serviceFee, bad.platformFee, bad.reserveHold
            )
        );
        // All of the amount in fees and reserve is allowed, as by the router.
        bad = depositTerms(100e6);
        bad.reserveHold = bad.amount - bad.serviceFee - bad.platformFee;
        factory.predict(bad, refundTo);
    }

    function _expectRefused(DepositTerms memory t, address rt, bytes memory reason) private {
        vm.expectRevert(reason);
        factory.predict(t, rt);
        vm.expectRevert(reason);
        factory.deploy(t, rt);
        vm.expectRevert(reason);
        factory.deployAndSweep(t, rt, "");
    }

    function test_implementationItselfIsUnusable() public {
        DepositForwarder impl = DepositForwarder(factory.implementation());
        mintTo(address(impl), 5e6);
        vm.expectRevert(IDepositForwarder.NotADeposit.selector);
        impl.sweep("");
        vm.expectRevert(IDepositForwarder.NotADeposit.selector);
        impl.returnToken(address(fiat));
        vm.expectRevert(IDepositForwarder.NotADeposit.selector);
        impl.terms();
        vm.assertEq(fbal(address(impl)), 5e6, "nothing moved");
    }

    function test_refusesEther() public {
        address deposit = factory.deploy(depositTerms(100e6), refundTo);
        vm.deal(address(this), 1 ether);
        (bool ok,) = deposit.call{value: 1 ether}("");
        vm.assertFalse(ok, "no receive");
        (ok,) = deposit.call{value: 1 ether}(hex"12345678");
        vm.assertFalse(ok, "no fallback");
        (ok,) = deposit.call{value: 1 ether}(abi.encodeCall(IDepositForwarder.sweep, ("")));
        vm.assertFalse(ok, "sweep is not payable");
        vm.assertEq(deposit.balance, 0, "no ETH");
    }

    // ---------------------------------------------------------------- paying

    function test_exactTransfer_sweepPaysAsAWalletWould() public {
        DepositTerms memory t = depositTerms(100e6);
        address deposit = factory.predict(t, refundTo);
        send(deposit, 100e6);
        bytes memory sig = depositSig(t);

        uint256[4] memory before = _parties();
        vm.expectEmit();
        emit IPaymentRouter.OrderPaid(
            t.orderId, deposit, merchant, address(fiat), 100e6, 1e6, 5e6, 9.4e6, platform, block.timestamp + HOLD
        );
        vm.expectEmit();
        emit IDepositForwarder.DepositSwept(t.orderId, 100e6, 0);
        vm.prank(makeAddr("relayer"));
        (address got, uint256 paid, uint256 returned) = factory.deployAndSweep(t, refundTo, sig);
        uint256[4] memory viaDeposit = _deltas(before);
        vm.assertEq(got, deposit, "deposit");
        vm.assertEq(paid, 100e6, "paid");
        vm.assertEq(returned, 0, "returned");

        // The same terms paid by a wallet under another order id.
        IPaymentRouter.PayOrder memory w = fiatOrder(100e6);
        before = _parties();
        _walletPay(w);
        uint256[4] memory viaWallet = _deltas(before);
        for (uint256 i; i < 4; ++i) {
            vm.assertEq(viaDeposit[i], viaWallet[i], "same split as a wallet's payOrder");
        }
        vm.assertEq(viaDeposit[0], 1e6, "treasury");
        vm.assertEq(viaDeposit[1], 5e6, "platform");
        vm.assertEq(viaDeposit[2], 84.6e6, "merchant");
        vm.assertEq(viaDeposit[3], 9.4e6, "router reserve");

        IPaymentRouter.Order memory rec = router.orders(t.orderId);
        vm.assertTrue(rec.paid, "paid");
        vm.assertEq(rec.payer, deposit, "payer recorded = the deposit address");
        vm.assertEq(rec.reserve, 9.4e6, "reserve");
        vm.assertEq(fbal(deposit), 0, "deposit empty");
        vm.assertEq(fbal(refundTo), 0, "nothing returned");
        vm.assertEq(IAllowance(address(fiat)).allowance(deposit, address(router)), 0, "allowance back to 0");
    }

    function test_overpayment_paysExactly_excessToRefundTo() public {
        DepositTerms memory t = depositTerms(100e6);
        address deposit = factory.deploy(t, refundTo);
        send(deposit, 60e6);
        send(deposit, 57.5e6);
        uint256 before = partySum();
        vm.expectEmit();
        emit IDepositForwarder.DepositReturned(t.orderId, refundTo, address(fiat), 17.5e6, EXCESS);
        vm.expectEmit();
        emit IDepositForwarder.DepositSwept(t.orderId, 100e6, 17.5e6);
        (uint256 paid, uint256 returned) = forwarder(deposit).sweep(depositSig(t));
        vm.assertEq(paid, 100e6, "paid");
        vm.assertEq(returned, 17.5e6, "returned");
        vm.assertEq(partySum() - before, 100e6, "the order got exactly its amount");
        vm.assertEq(fbal(refundTo), 17.5e6, "excess to refundTo");
        vm.assertEq(fbal(deposit), 0, "empty");
        vm.assertEq(IAllowance(address(fiat)).allowance(deposit, address(router)), 0, "allowance 0");
    }

    function test_underpayment_waits_thenTopUpPays() public {
        DepositTerms memory t = depositTerms(100e6);
        address deposit = factory.predict(t, refundTo);
        bytes memory sig = depositSig(t);
        send(deposit, 40e6);
        vm.expectRevert(abi.encodeWithSelector(IDepositForwarder.Underpaid.selector, 40e6, 100e6));
        factory.deployAndSweep(t, refundTo, sig);
        factory.deploy(t, refundTo);
        vm.expectRevert(abi.encodeWithSelector(IDepositForwarder.Underpaid.selector, 40e6, 100e6));
        forwarder(deposit).sweep(sig);
        vm.expectRevert(abi.encodeWithSelector(IDepositForwarder.NotReturnable.selector, t.orderId));
        forwarder(deposit).returnToken(address(fiat));
        vm.assertEq(fbal(deposit), 40e6, "funds wait");

        vm.warp(t.deadline); // the deadline second is still payable
        send(deposit, 60e6);
        forwarder(deposit).sweep(sig);
        vm.assertEq(router.orders(t.orderId).payer, deposit, "paid by the deposit");
        vm.assertEq(fbal(deposit), 0, "empty");
        vm.assertEq(fbal(refundTo), 0, "nothing returned");
    }

    function test_underpaymentPastDeadline_returnedWhole_byAnyone_routerPaused() public {
        DepositTerms memory t = depositTerms(100e6);
        address deposit = factory.predict(t, refundTo);
        send(deposit, 40e6);
        vm.prank(owner);
        router.pause();
        vm.warp(t.deadline + 1);

        vm.expectEmit();
        emit IDepositForwarder.DepositReturned(t.orderId, refundTo, address(fiat), 40e6, LATE);
        vm.prank(makeAddr("anyone"));
        (address got, uint256 paid, uint256 returned) = factory.deployAndSweep(t, refundTo, "");
        vm.assertEq(got, deposit, "deposit");
        vm.assertEq(paid, 0, "paid");
        vm.assertEq(returned, 40e6, "returned whole");
        vm.assertEq(fbal(refundTo), 40e6, "refundTo");
        vm.assertEq(fbal(deposit), 0, "empty");

        // Even a router that is not a contract at all cannot strand it.
        send(deposit, 1e6);
        vm.etch(address(router), hex"fe");
        vm.prank(makeAddr("anyone else"));
        vm.assertEq(forwarder(deposit).returnToken(address(fiat)), 1e6, "returnToken past the deadline");
        vm.assertEq(fbal(refundTo), 41e6, "refundTo");
    }

    function test_sweepWithNothing() public {
        DepositTerms memory t = depositTerms(100e6);
        address deposit = factory.deploy(t, refundTo);
        vm.expectRevert(abi.encodeWithSelector(IDepositForwarder.Underpaid.selector, 0, 100e6));
        forwarder(deposit).sweep("");
        vm.warp(t.deadline + 1);
        vm.recordLogs();
        (uint256 paid, uint256 returned) = forwarder(deposit).sweep("");
        vm.assertEq(paid + returned, 0, "nothing to do");
        vm.assertEq(countLogs(deposit, IDepositForwarder.DepositReturned.selector), 0, "no event for 0");
    }

    // ---------------------------------------------------------------- late, paid elsewhere, cancelled

    function test_late_transferAfterDeadline_returned() public {
        DepositTerms memory t = depositTerms(100e6);
        address deposit = factory.predict(t, refundTo);
        bytes memory sig = depositSig(t);
        vm.warp(t.deadline + 1);
        send(deposit, 100e6);
        vm.expectEmit();
        emit IDepositForwarder.DepositReturned(t.orderId, refundTo, address(fiat), 100e6, LATE);
        (, uint256 paid, uint256 returned) = factory.deployAndSweep(t, refundTo, sig);
        vm.assertEq(paid, 0, "not paid");
        vm.assertEq(returned, 100e6, "returned");
        vm.assertFalse(router.orders(t.orderId).paid, "order unpaid");
        vm.assertEq(fbal(refundTo), 100e6, "refundTo");
    }

    function test_orderPaidByAnotherMethod_transferReturned() public {
        DepositTerms memory t = depositTerms(100e6);
        address deposit = factory.predict(t, refundTo);
        bytes memory sig = depositSig(t);
        // A wallet pays a payer=address(0) PayOrder of the same orderId.
        _walletPay(payOrderOf(t, address(0)));
        send(deposit, 100e6);
        vm.expectEmit();
        emit IDepositForwarder.DepositReturned(t.orderId, refundTo, address(fiat), 100e6, SETTLED);
        (, uint256 paid, uint256 returned) = factory.deployAndSweep(t, refundTo, sig);
        vm.assertEq(paid, 0, "not paid twice");
        vm.assertEq(returned, 100e6, "returned");
        vm.assertEq(router.orders(t.orderId).payer, payer, "the wallet stays the payer");
        vm.assertEq(fbal(refundTo), 100e6, "refundTo");
        send(deposit, 3e6);
        vm.assertEq(forwarder(deposit).returnToken(address(fiat)), 3e6, "returnToken too");
    }

    function test_orderAuthorizedByAnotherMethod_transferReturned() public {
        DepositTerms memory t = depositTerms(100e6);
        address deposit = factory.predict(t, refundTo);
        IPaymentRouter.PayOrder memory o = payOrderOf(t, address(0));
        o.captureDeadline = block.timestamp + 1 days;
        _walletPay(o);
        send(deposit, 100e6);
        (, uint256 paid, uint256 returned) = factory.deployAndSweep(t, refundTo, depositSig(t));
        vm.assertEq(paid, 0, "not paid");
        vm.assertEq(returned, 100e6, "an authorization counts as paid");
    }

    function test_cancelledOrder_transferReturned() public {
        DepositTerms memory t = depositTerms(100e6);
        address deposit = factory.predict(t, refundTo);
        bytes memory sig = depositSig(t);
        send(deposit, 100e6);
        vm.prank(operator);
        router.cancelOrders(ids1(t.orderId));
        vm.expectEmit();
        emit IDepositForwarder.DepositReturned(t.orderId, refundTo, address(fiat), 100e6, SETTLED);
        factory.deployAndSweep(t, refundTo, sig);
        vm.assertEq(fbal(refundTo), 100e6, "returned");
    }

    // ---------------------------------------------------------------- refunds of a deposit-paid order

    function test_routerRefund_arrivesAtDeposit_passedOnToRefundTo() public {
        DepositTerms memory t = depositTerms(100e6);
        address deposit = factory.predict(t, refundTo);
        send(deposit, 100e6);
        factory.deployAndSweep(t, refundTo, depositSig(t));

        // The refund must name the recorded payer, i.e. the deposit address, not refundTo.
        IPaymentRouter.RefundOrder memory r = refundOrder(t.orderId, 5e6);
        r.to = refundTo;
        bytes memory rsig = sign(r);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.RefundNotToPayer.selector, deposit, refundTo));
        vm.prank(operator);
        router.refund(r, rsig);

        r.to = deposit;
        rsig = sign(r);
        vm.prank(operator);
        router.refund(r, rsig);
        vm.assertEq(fbal(deposit), 5e6, "refund arrives at the deposit");

        vm.expectEmit();
        emit IDepositForwarder.DepositReturned(t.orderId, refundTo, address(fiat), 5e6, SETTLED);
        vm.prank(makeAddr("anyone"));
        (uint256 paid, uint256 returned) = forwarder(deposit).sweep("");
        vm.assertEq(paid, 0, "not paid again");
        vm.assertEq(returned, 5e6, "passed on");
        vm.assertEq(fbal(refundTo), 5e6, "refundTo");

        // The rest, 95 USDC (4.40 from the reserve, 90.60 from the submitter), after the deadline, via returnToken.
        vm.warp(t.deadline + 1);
        IPaymentRouter.RefundOrder memory rest = refundOrder(t.orderId, 95e6);
        rest.to = deposit;
        mintTo(operator, 95e6);
        vm.prank(operator);
        fiat.approve(address(router), 95e6);
        bytes memory restSig = sign(rest);
        vm.prank(operator);
        router.refund(rest, restSig);
        vm.assertEq(forwarder(deposit).returnToken(address(fiat)), 95e6, "returnToken passes it on");
        vm.assertEq(fbal(refundTo), 100e6, "whole amount back at refundTo");
        vm.assertEq(fbal(deposit), 0, "empty");
    }

    // ---------------------------------------------------------------- signatures

    function test_wrongSignatures_revert_nothingMoves() public {
        DepositTerms memory t = depositTerms(100e6);
        address deposit = factory.deploy(t, refundTo);
        send(deposit, 100e6);
        IPaymentRouter.PayOrder memory o = payOrderOf(t, deposit);
        bytes32 digest = router.hashPayOrder(o);
        uint256 before = partySum();

        // Signed by a non-signer.
        bytes memory bad = SigUtils.signPay(OTHER_KEY, o, address(router));
        _expectSweepRevert(
            deposit, bad, abi.encodeWithSelector(IPaymentRouter.InvalidSigner.selector, vm.addr(OTHER_KEY))
        );

        // Signed for other terms (a smaller amount).
        IPaymentRouter.PayOrder memory other = payOrderOf(t, deposit);
        other.amount = 1e6;
        other.reserveHold = 0;
        bad = sign(other);
        _expectSweepRevert(
            deposit, bad, abi.encodeWithSelector(IPaymentRouter.InvalidSigner.selector, SigUtils.recover(digest, bad))
        );

        // Signed with payer = anyone (address(0)) or another payer: the router's digest has payer = the deposit.
        bad = sign(payOrderOf(t, address(0)));
        _expectSweepRevert(
            deposit, bad, abi.encodeWithSelector(IPaymentRouter.InvalidSigner.selector, SigUtils.recover(digest, bad))
        );
        bad = sign(payOrderOf(t, payer));
        _expectSweepRevert(
            deposit, bad, abi.encodeWithSelector(IPaymentRouter.InvalidSigner.selector, SigUtils.recover(digest, bad))
        );
        _expectSweepRevert(deposit, "", abi.encodeWithSelector(IPaymentRouter.InvalidSigner.selector, address(0)));

        vm.assertEq(fbal(deposit), 100e6, "nothing moved");
        vm.assertEq(partySum(), before, "nobody paid");
        vm.assertEq(IAllowance(address(fiat)).allowance(deposit, address(router)), 0, "no allowance left");
        vm.assertFalse(router.orders(t.orderId).paid, "unpaid");

        // The deposit's own signature is usable by the deposit only: a wallet presenting it is WrongPayer.
        bytes memory good = depositSig(t);
        vm.prank(payer);
        fiat.approve(address(router), 100e6);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.WrongPayer.selector, deposit, payer));
        vm.prank(payer);
        router.payOrder(o, good);

        forwarder(deposit).sweep(good);
        vm.assertEq(router.orders(t.orderId).payer, deposit, "the right signature pays");
    }

    function _expectSweepRevert(address deposit, bytes memory sig, bytes memory reason) private {
        vm.expectRevert(reason);
        vm.prank(makeAddr("relayer"));
        forwarder(deposit).sweep(sig);
    }

    // ---------------------------------------------------------------- other tokens

    function test_otherToken_returnedToRefundTo() public {
        DepositTerms memory t = depositTerms(100e6);
        address deposit = factory.deploy(t, refundTo);
        usdc.mint(deposit, 7e18); // RouterTestBase's TestUSDC, sent by mistake
        send(deposit, 100e6);

        forwarder(deposit).sweep(depositSig(t));
        vm.assertEq(usdc.balanceOf(deposit), 7e18, "sweep leaves other tokens alone");

        vm.expectEmit();
        emit IDepositForwarder.DepositReturned(t.orderId, refundTo, address(usdc), 7e18, OTHER_TOKEN);
        vm.prank(makeAddr("anyone"));
        vm.assertEq(forwarder(deposit).returnToken(address(usdc)), 7e18, "returned");
        vm.assertEq(usdc.balanceOf(refundTo), 7e18, "refundTo");
        vm.assertEq(usdc.balanceOf(deposit), 0, "empty");
    }

    function test_otherToken_returnedBeforeDeadline_unpaidOrder() public {
        DepositTerms memory t = depositTerms(100e6);
        address deposit = factory.deploy(t, refundTo);
        usdc.mint(deposit, 3e6);
        send(deposit, 50e6);
        vm.assertEq(forwarder(deposit).returnToken(address(usdc)), 3e6, "other token any time");
        vm.assertEq(fbal(deposit), 50e6, "the order's token stays");
    }

    // ---------------------------------------------------------------- blacklisted refundTo

    function test_blacklistedRefundTo_returnReverts_fundsStayPut() public {
        DepositTerms memory t = depositTerms(100e6);
        address deposit = factory.predict(t, refundTo);
        send(deposit, 130e6);
        vm.prank(roles.blacklister);
        fiat.blacklist(refundTo);

        // Paying with excess: the excess transfer reverts, so the whole sweep (payment included) reverts.
        bytes memory sig = depositSig(t);
        vm.expectRevert(SafeTransferLib.TransferFailed.selector);
        factory.deployAndSweep(t, refundTo, sig);
        vm.assertEq(fbal(deposit), 130e6, "funds stay put");

        // Past the deadline: the return reverts; the funds stay, nothing goes elsewhere.
        vm.warp(t.deadline + 1);
        factory.deploy(t, refundTo);
        vm.expectRevert(SafeTransferLib.TransferFailed.selector);
        forwarder(deposit).sweep("");
        vm.expectRevert(SafeTransferLib.TransferFailed.selector);
        forwarder(deposit).returnToken(address(fiat));
        vm.assertEq(fbal(deposit), 130e6, "funds stay put");
        vm.assertEq(fbal(refundTo), 0, "nothing at refundTo");

        // Once Circle lifts the blacklisting, anyone can return them.
        vm.prank(roles.blacklister);
        fiat.unBlacklist(refundTo);
        forwarder(deposit).sweep("");
        vm.assertEq(fbal(refundTo), 130e6, "returned");
    }

    function test_blacklistedRefundTo_exactPaymentStillPays() public {
        DepositTerms memory t = depositTerms(100e6);
        address deposit = factory.predict(t, refundTo);
        send(deposit, 100e6);
        vm.prank(roles.blacklister);
        fiat.blacklist(refundTo);
        factory.deployAndSweep(t, refundTo, depositSig(t));
        vm.assertEq(router.orders(t.orderId).payer, deposit, "an exact payment returns nothing, so it pays");
    }

    // ---------------------------------------------------------------- fuzz

    /// @dev Two transfers around a time warp, then a sweep by a random caller (one of the service's keys or not):
    ///      the order gets exactly its amount or nothing, refundTo the rest, nobody else anything.
    function testFuzz_transfersWarpSweep(uint256 a1, uint256 a2, uint256 dt, uint256 who, uint256 amount) public {
        amount = bound(amount, 1, 1_000e6);
        a1 = bound(a1, 0, 2 * amount);
        a2 = bound(a2, 0, 2 * amount);
        dt = bound(dt, 0, 2 hours);
        DepositTerms memory t = termsOf(fiatOrder(amount));
        address deposit = factory.predict(t, refundTo);
        bytes memory sig = depositSig(t);
        // The service's keys and strangers; none of them is a party of the order.
        address[5] memory callers = [signer, operator, owner, makeAddr("relayer"), makeAddr("stranger")];
        address caller = callers[who % 5];

        if (a1 > 0) send(deposit, a1);
        vm.warp(block.timestamp + dt);
        if (a2 > 0) send(deposit, a2);
        uint256 arrived = a1 + a2;
        uint256 parties = partySum();
        uint256 callerBefore = fbal(caller);

        vm.prank(caller);
        try factory.deployAndSweep(t, refundTo, sig) returns (address, uint256 paid, uint256 returned) {
            if (block.timestamp > t.deadline) {
                vm.assertEq(paid, 0, "late: nothing paid");
                vm.assertEq(returned, arrived, "late: all returned");
            } else {
                vm.assertEq(paid, amount, "paid exactly the amount");
                vm.assertEq(returned, arrived - amount, "excess returned");
            }
        } catch (bytes memory reason) {
            vm.assertTrue(block.timestamp <= t.deadline && arrived < amount, "only under-payment reverts");
            vm.assertEq(
                keccak256(reason),
                keccak256(abi.encodeWithSelector(IDepositForwarder.Underpaid.selector, arrived, amount)),
                "Underpaid"
            );
        }
        uint256 paidOut = partySum() - parties;
        vm.assertTrue(paidOut == 0 || paidOut == amount, "the order gets all or nothing");
        vm.assertEq(paidOut + fbal(refundTo) + fbal(deposit), arrived, "paid + returned + left = arrived");
        vm.assertEq(fbal(caller), callerBefore, "the caller gets nothing");
        if (block.timestamp > t.deadline) vm.assertEq(fbal(deposit), 0, "empty after a late sweep");
    }

    // ---------------------------------------------------------------- gas

    /// @dev Regression bounds; the exact figures are in `forge test --gas-report` (DepositFactory.deployAndSweep).
    ///      Compared with a wallet's payOrder of the same terms from the same state (parties holding no USDC yet).
    function test_gas_deployAndSweepExact() public {
        DepositTerms memory t = depositTerms(100e6);
        address deposit = factory.predict(t, refundTo);
        send(deposit, 100e6);
        bytes memory sig = depositSig(t);
        IPaymentRouter.PayOrder memory w = payOrderOf(t, address(0));
        bytes memory wsig = sign(w);
        vm.prank(payer);
        fiat.approve(address(router), 100e6);
        uint256 snap = vm.snapshotState();

        uint256 g = gasleft();
        factory.deployAndSweep(t, refundTo, sig);
        g -= gasleft();
        vm.revertToState(snap);
        vm.prank(payer);
        uint256 gw = gasleft();
        router.payOrder(w, wsig);
        gw -= gasleft();

        // At the time of writing: 476,413 vs 303,420 (the clone's creation, ~115k, is most of the difference).
        vm.assertLe(g, 500_000, "deployAndSweep gas");
        vm.assertLe(g - gw, 200_000, "overhead over a wallet's payOrder");
        vm.assertLe(factory.implementation().code.length, 6_000, "forwarder runtime");
        vm.assertLe(address(factory).code.length, 12_000, "factory runtime");
    }

    // ---------------------------------------------------------------- helpers

    function _walletPay(IPaymentRouter.PayOrder memory o) private {
        bytes memory sig = sign(o);
        vm.startPrank(payer);
        fiat.approve(address(router), o.amount);
        router.payOrder(o, sig);
        vm.stopPrank();
    }

    function _parties() private view returns (uint256[4] memory p) {
        p = [fbal(treasury), fbal(platform), fbal(merchant), fbal(address(router))];
    }

    function _deltas(uint256[4] memory before) private view returns (uint256[4] memory d) {
        uint256[4] memory nowP = _parties();
        for (uint256 i; i < 4; ++i) {
            d[i] = nowP[i] - before[i];
        }
    }
}
