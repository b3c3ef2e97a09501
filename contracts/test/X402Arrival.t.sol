// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../src/IPaymentRouter.sol";
import {ArrivalVerifier} from "../src/arrival/ArrivalVerifier.sol";
import {HistoryMock, LogForger} from "./mocks/LogForger.sol";
import {ArrivalProofs} from "./utils/ArrivalProofs.sol";
import {AuthUtils} from "./utils/AuthUtils.sol";
import {RlpWriter} from "./utils/RlpWriter.sol";
import {Vm} from "./utils/Vm.sol";
import {X402TestBase} from "./utils/X402TestBase.sol";
import {X402Utils} from "./utils/X402Utils.sol";

/// @notice The router spends a front-run x402 transfer only once it is proven from the chain's own data (block
///         header vouched for by blockhash, receipt in its receiptsRoot, the token's AuthorizationUsed + Transfer
///         logs), and only once. Receipts carry the logs Circle's FiatTokenV2_2 really emitted (vm.recordLogs).
contract X402ArrivalTest is X402TestBase {
    uint256 internal constant ATTACKER_KEY = 0xA77AC4;
    address internal attacker;
    address internal victim;

    function setUp() public override {
        super.setUp();
        attacker = vm.addr(ATTACKER_KEY);
        victim = payer;
        mintTo(attacker, 1_000e6);
    }

    // ------------------------------------------------------------ cancelled nonces and stolen keys

    /// A payer signs a transfer to the router, cancels it, and (with a stolen operator + signer key) asks the
    /// router to pay it out of a victim's stranded funds: every way is refused, the victim can still take them back.
    function test_RevertWhen_CancelledNonce_attributeAndReturnRefused() public {
        IPaymentRouter.PayOrder memory victimOrder = x402Order(50e6, victim);
        AuthUtils.Authorization memory v = x402Auth(victim, victimOrder);
        frontRun(v, signX402(PAYER_KEY, v)); // the victim's funds land, unattributed
        IPaymentRouter.PayOrder memory o = x402Order(50e6, attacker);
        AuthUtils.Authorization memory a = x402Auth(attacker, o);
        vm.prank(attacker);
        fiat.cancelAuthorization(attacker, a.nonce, X402Utils.signCancel(ATTACKER_KEY, attacker, fiat, a.nonce));
        vm.assertTrue(fiat.authorizationState(attacker, a.nonce), "the token reports the nonce used");

        IPaymentRouter.ArrivalProof memory none;
        IPaymentRouter.ArrivalProof memory victims = proofOf(v);
        bytes memory notProven = abi.encodeWithSelector(IPaymentRouter.ArrivalNotProven.selector, attacker, a.nonce);
        bytes memory notUsed =
            abi.encodeWithSelector(IPaymentRouter.NotAuthorizationUsed.selector, 0, attacker, a.nonce);
        expectAttributeRevert(notProven, o, a, none);
        expectAttributeRevert(notUsed, o, a, victims);
        expectReturnRevert(notProven, a, none);
        expectReturnRevert(notUsed, a, victims);
        vm.prank(attacker);
        vm.expectRevert(notUsed);
        router.returnTransfer(address(fiat), attacker, a.nonce, victims);
        vm.expectRevert(notUsed);
        router.proveArrival(address(fiat), attacker, a.nonce, victims);

        vm.assertEq(router.arrived(address(fiat), attacker, a.nonce), 0, "nothing arrived");
        vm.assertFalse(router.x402Consumed(attacker, a.nonce), "nothing spent");
        vm.assertEq(fbal(attacker), 1_000e6, "the attacker gets nothing");
        vm.assertEq(unattributed(), v.value, "the victim's funds stay");
        vm.prank(victim);
        router.returnTransfer(address(fiat), victim, v.nonce, victims);
        vm.assertEq(fbal(victim), FUNDS, "the victim takes them back");
        vm.assertEq(unattributed(), 0, "nothing left");
    }

    /// The victim's funds and the attacker's own transfer both landed: the attacker can spend only its own, once.
    function test_victimFundsStayReturnable_afterAttackerAttempts() public {
        AuthUtils.Authorization memory v = x402Auth(victim, x402Order(30e6, victim));
        frontRun(v, signX402(PAYER_KEY, v));
        IPaymentRouter.PayOrder memory o = x402Order(30e6, attacker);
        AuthUtils.Authorization memory own = x402Auth(attacker, x402Order(1e6, attacker));
        frontRun(own, signX402(ATTACKER_KEY, own)); // a real 1 USDC transfer of its own
        // Its 1 USDC proof for a 30 USDC order, the victim's proof for its own nonce, then its 1 USDC back once.
        expectAttributeRevert(abi.encodeWithSelector(IPaymentRouter.ArrivalValueMismatch.selector, 1e6, 30e6), o, own);
        expectAttributeRevert(
            abi.encodeWithSelector(IPaymentRouter.NotAuthorizationUsed.selector, 0, attacker, v.nonce),
            o,
            AuthUtils.Authorization(attacker, address(router), 30e6, 0, 0, v.nonce),
            proofOf(v)
        );
        vm.prank(attacker);
        router.returnTransfer(address(fiat), attacker, own.nonce, proofOf(own));
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.X402NonceConsumed.selector, attacker, own.nonce));
        vm.prank(attacker);
        router.returnTransfer(address(fiat), attacker, own.nonce, proofOf(own));
        // The victim's own transfer goes back to the victim only, whoever asks.
        vm.prank(attacker);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.NotPayerOrOperator.selector, attacker));
        router.returnTransfer(address(fiat), victim, v.nonce, proofOf(v));
        vm.assertEq(fbal(attacker), 1_000e6, "the attacker ends where it started");
        returnX402(v);
        vm.assertEq(fbal(victim), FUNDS, "the victim is whole");
    }

    function test_oneTransfer_spentOnce() public {
        IPaymentRouter.PayOrder memory o = x402Order(10e6, payer);
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        frontRun(a, signX402(PAYER_KEY, a));
        vm.expectEmit();
        emit IPaymentRouter.ArrivalProven(address(fiat), payer, a.nonce, a.value);
        vm.assertEq(router.proveArrival(address(fiat), payer, a.nonce, proofOf(a)), a.value, "proven by anyone");
        IPaymentRouter.ArrivalProof memory none;
        vm.assertEq(router.proveArrival(address(fiat), payer, a.nonce, none), a.value, "idempotent");
        vm.assertEq(router.arrived(address(fiat), payer, a.nonce), a.value, "recorded");
        // Already proven: the operator needs no proof.
        vm.prank(operator);
        router.attributeTransfer(o, sign(o), payer, a.nonce, none);
        bytes memory consumed = abi.encodeWithSelector(IPaymentRouter.X402NonceConsumed.selector, payer, a.nonce);
        expectAttributeRevert(consumed, x402Order(10e6, payer), a);
        expectReturnRevert(consumed, a);
        vm.prank(payer);
        vm.expectRevert(consumed);
        router.returnTransfer(address(fiat), payer, a.nonce, none);
    }

    /// The router's own ERC-3009 pulls leave the same log pair as a front-run: provable, never spendable again.
    function test_RevertWhen_RouterPullReplayed() public {
        // Gasless: receiveWithAuthorization, nonce = the order's digest.
        IPaymentRouter.PayOrder memory g = fiatOrder(20e6);
        g.payer = payer;
        AuthUtils.Authorization memory ga = authFor(payer, g);
        vm.recordLogs();
        relay(g, ga, signAuth(PAYER_KEY, ga));
        IPaymentRouter.ArrivalProof memory gp = mine(vm.getRecordedLogs(), 0, 2);
        vm.assertEq(router.proveArrival(address(fiat), payer, ga.nonce, gp), g.amount, "a real arrival");
        bytes memory consumed = abi.encodeWithSelector(IPaymentRouter.X402NonceConsumed.selector, payer, ga.nonce);
        expectReturnRevert(consumed, ga, gp);
        expectAttributeRevert(consumed, x402Order(20e6, payer), ga, gp);
        // x402 relayed: transferWithAuthorization pulled by the router.
        IPaymentRouter.PayOrder memory o = x402Order(15e6, payer);
        AuthUtils.Authorization memory a = x402Auth(payer, o);
        vm.recordLogs();
        payX402(o, a, signX402(PAYER_KEY, a));
        IPaymentRouter.ArrivalProof memory p = mine(vm.getRecordedLogs(), 1, 4);
        consumed = abi.encodeWithSelector(IPaymentRouter.X402NonceConsumed.selector, payer, a.nonce);
        expectReturnRevert(consumed, a, p);
        expectAttributeRevert(consumed, x402Order(15e6, payer), a, p);
        vm.assertEq(fbal(address(router)), g.reserveHold + o.reserveHold, "only the reserves remain");
    }

    // ------------------------------------------------------------ who may return

    function test_returnByPayer_withoutOperator_evenWhilePaused() public {
        AuthUtils.Authorization memory a = x402Auth(payer, x402Order(12e6, payer));
        frontRun(a, signX402(PAYER_KEY, a));
        vm.prank(owner);
        router.pause();
        vm.expectEmit();
        emit IPaymentRouter.X402Returned(address(fiat), payer, a.nonce, a.value);
        _returnBy(payer, a);
        vm.assertEq(fbal(payer), FUNDS, "back to the payer");
    }

    function test_RevertWhen_ReturnByStranger() public {
        AuthUtils.Authorization memory a = x402Auth(payer, x402Order(12e6, payer));
        frontRun(a, signX402(PAYER_KEY, a));
        address[4] memory callers = [relayer, owner, frontRunner, attacker];
        for (uint256 i; i < callers.length; ++i) {
            vm.prank(callers[i]);
            vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.NotPayerOrOperator.selector, callers[i]));
            router.returnTransfer(address(fiat), payer, a.nonce, proofOf(a));
        }
        vm.assertEq(unattributed(), a.value, "untouched");
    }

    // ------------------------------------------------------------ forged proofs

    function test_RevertWhen_HeaderHashWrong() public {
        AuthUtils.Authorization memory a = _landed(7e6);
        IPaymentRouter.ArrivalProof memory p = proofOf(a);
        uint256 number = block.number - 1;
        bytes32 known = keccak256(p.header);
        p.header[10] = bytes1(uint8(p.header[10]) ^ 1); // inside the parent hash
        _expectProveRevert(
            abi.encodeWithSelector(IPaymentRouter.HeaderHashMismatch.selector, number, known, keccak256(p.header)), a, p
        );
    }

    function test_RevertWhen_BlockOutsideWindow_withoutHistory() public {
        AuthUtils.Authorization memory a = _landed(7e6);
        uint256 number = block.number - 1;
        vm.roll(number + 257); // blockhash(number) is now 0; this chain has no EIP-2935 contract
        _expectProveRevert(abi.encodeWithSelector(IPaymentRouter.BlockHashUnavailable.selector, number), a, proofOf(a));
        vm.roll(number + 256); // the last block blockhash still reaches
        vm.assertEq(router.proveArrival(address(fiat), a.from, a.nonce, proofOf(a)), a.value, "inside the window");
    }

    function test_olderBlock_provenThroughHistoryContract() public {
        AuthUtils.Authorization memory a = _landed(7e6);
        uint256 number = block.number - 1;
        vm.roll(number + 1000);
        address history = ArrivalVerifier(router.arrivalVerifier()).HISTORY();
        vm.etch(history, address(new HistoryMock()).code);
        _expectProveRevert(abi.encodeWithSelector(IPaymentRouter.BlockHashUnavailable.selector, number), a, proofOf(a));
        HistoryMock(payable(history)).set(number, keccak256(proofOf(a).header));
        vm.assertEq(router.proveArrival(address(fiat), a.from, a.nonce, proofOf(a)), a.value, "via EIP-2935");
    }

    function test_RevertWhen_ReceiptKeyOrNodeWrong() public {
        AuthUtils.Authorization memory a = _landed(7e6); // receipt 1 of 3: root -> branch(0) -> leaf
        IPaymentRouter.ArrivalProof memory p = proofOf(a);
        p.txIndex = 2; // the branch points to another leaf
        _expectProveRevert(abi.encodeWithSelector(IPaymentRouter.ReceiptProofInvalid.selector, 2), a, p);
        p.txIndex = 0; // the root points elsewhere (nibble 8)
        _expectProveRevert(abi.encodeWithSelector(IPaymentRouter.ReceiptProofInvalid.selector, 1), a, p);
        p = proofOf(a);
        bytes memory leaf = p.receiptProof[2];
        leaf[leaf.length - 1] = bytes1(uint8(leaf[leaf.length - 1]) ^ 1);
        _expectProveRevert(abi.encodeWithSelector(IPaymentRouter.ReceiptProofInvalid.selector, 2), a, p);
        p = proofOf(a);
        bytes[] memory short = new bytes[](2);
        (short[0], short[1]) = (p.receiptProof[0], p.receiptProof[1]);
        p.receiptProof = short; // stops at a branch
        _expectProveRevert(abi.encodeWithSelector(IPaymentRouter.ReceiptProofInvalid.selector, 1), a, p);
    }

    function test_RevertWhen_LogIndexWrong() public {
        AuthUtils.Authorization memory a = _landed(7e6);
        IPaymentRouter.ArrivalProof memory p = proofOf(a);
        p.logIndex = 1; // Transfer, then nothing
        _expectProveRevert(abi.encodeWithSelector(IPaymentRouter.LogIndexOutOfRange.selector, 1, 2), a, p);
    }

    /// FiatTokenV2_2's real pair, with another contract's log put between the two.
    function test_RevertWhen_LogPairNotAdjacent() public {
        AuthUtils.Authorization memory a = x402Auth(payer, x402Order(7e6, payer));
        vm.recordLogs();
        fiat.transferWithAuthorization(
            a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, signX402(PAYER_KEY, a)
        );
        LogForger other = new LogForger();
        other.forge(payer, address(router), a.value, a.nonce);
        Vm.Log[] memory logs = vm.getRecordedLogs();
        Vm.Log[] memory split = new Vm.Log[](3);
        (split[0], split[1], split[2]) = (logs[0], logs[2], logs[1]);
        IPaymentRouter.ArrivalProof memory p = mine(split, 0, 1);
        _expectProveRevert(
            abi.encodeWithSelector(IPaymentRouter.LogNotFromToken.selector, 1, address(other), address(fiat)), a, p
        );
    }

    /// A real TransferWithAuthorization to another address than the router.
    function test_RevertWhen_TransferToAnotherAddress() public {
        AuthUtils.Authorization memory a = x402Auth(payer, x402Order(7e6, payer));
        a.to = merchant;
        vm.recordLogs();
        fiat.transferWithAuthorization(
            a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, signX402(PAYER_KEY, a)
        );
        IPaymentRouter.ArrivalProof memory p = mine(vm.getRecordedLogs(), 0, 2);
        _expectProveRevert(abi.encodeWithSelector(IPaymentRouter.NotTransferTo.selector, 1, address(router)), a, p);
    }

    /// The same events from a contract that is not the token: provable for that "token" only, useless for USDC.
    function test_RevertWhen_LogsFromAnotherContract() public {
        LogForger forger = new LogForger();
        bytes32 nonce = keccak256("forged");
        vm.recordLogs();
        forger.forge(attacker, address(router), 500e6, nonce);
        IPaymentRouter.ArrivalProof memory p = mine(vm.getRecordedLogs(), 0, 2);
        AuthUtils.Authorization memory a = AuthUtils.Authorization(attacker, address(router), 500e6, 0, 0, nonce);
        _expectProveRevert(
            abi.encodeWithSelector(IPaymentRouter.LogNotFromToken.selector, 0, address(forger), address(fiat)), a, p
        );
        vm.assertEq(router.proveArrival(address(forger), attacker, nonce, p), 500e6, "arrived in its own token");
        IPaymentRouter.PayOrder memory o = x402Order(500e6, attacker);
        IPaymentRouter.ArrivalProof memory none;
        expectAttributeRevert(
            abi.encodeWithSelector(IPaymentRouter.ArrivalNotProven.selector, attacker, nonce), o, a, none
        );
    }

    function test_RevertWhen_AuthorizationUsedForAnotherAuthorizerOrNonce() public {
        AuthUtils.Authorization memory a = _landed(7e6);
        IPaymentRouter.ArrivalProof memory p = proofOf(a);
        bytes32 otherNonce = keccak256("other");
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.NotAuthorizationUsed.selector, 0, payer, otherNonce));
        router.proveArrival(address(fiat), payer, otherNonce, p);
        vm.expectRevert(abi.encodeWithSelector(IPaymentRouter.NotAuthorizationUsed.selector, 0, attacker, a.nonce));
        router.proveArrival(address(fiat), attacker, a.nonce, p);
    }

    // ------------------------------------------------------------ receipt shapes

    /// 130 receipts: index 129 (key 0x8181) sits under an extension node (keys 0x8180 / 0x8181 share nibble 8).
    function test_proof_throughExtensionNode_inLargeBlock() public {
        AuthUtils.Authorization memory a = x402Auth(payer, x402Order(9e6, payer));
        vm.recordLogs();
        frontRunPlain(a);
        IPaymentRouter.ArrivalProof memory p = mine(vm.getRecordedLogs(), 129, 130);
        vm.assertEq(p.receiptProof.length, 5, "root, branch, extension, branch, leaf");
        vm.assertEq(uint8(p.receiptProof[2][1]), 0x18, "an extension node of odd path [8]");
        vm.assertEq(router.proveArrival(address(fiat), payer, a.nonce, p), a.value, "proven");
    }

    /// Legacy (untyped) and OP-stack deposit (type 0x7e, fields after the logs) receipts.
    function test_proof_legacyAndDepositReceipts() public {
        AuthUtils.Authorization memory a = x402Auth(payer, x402Order(9e6, payer));
        vm.recordLogs();
        frontRunPlain(a);
        Vm.Log[] memory logs = vm.getRecordedLogs();
        bytes[] memory receipts = new bytes[](2);
        receipts[0] = ArrivalProofs.filler(0);
        receipts[1] = ArrivalProofs.receipt(logs, 0);
        vm.assertEq(_proveAt(a, receipts), a.value, "legacy");
        AuthUtils.Authorization memory b = x402Auth(payer, x402Order(8e6, payer));
        vm.recordLogs();
        frontRunPlain(b);
        logs = vm.getRecordedLogs();
        bytes[] memory encoded = new bytes[](logs.length);
        for (uint256 i; i < logs.length; ++i) {
            encoded[i] = RlpWriter.log(logs[i].emitter, logs[i].topics, logs[i].data);
        }
        bytes[] memory fields = new bytes[](6);
        (fields[0], fields[1], fields[2]) =
        (RlpWriter.uint_(1), RlpWriter.uint_(90_000), RlpWriter.bytes_(new bytes(256)));
        (fields[3], fields[4], fields[5]) = (RlpWriter.list(encoded), RlpWriter.uint_(42), RlpWriter.uint_(1));
        receipts[1] = bytes.concat(hex"7e", RlpWriter.list(fields));
        vm.assertEq(_proveAt(b, receipts), b.value, "deposit receipt");
    }

    // ------------------------------------------------------------ fuzz

    /// Whatever the block's size, the transfer's position and its value, the proven value is the Transfer's.
    function testFuzz_ProvenValueIsTheTransfers(uint256 value, uint256 count, uint256 txIndex) public {
        value = bound(value, 1, FUNDS);
        count = bound(count, 1, 24);
        txIndex = bound(txIndex, 0, count - 1);
        AuthUtils.Authorization memory a = x402Auth(payer, x402Order(1, payer));
        a.value = value;
        vm.recordLogs();
        frontRunPlain(a);
        IPaymentRouter.ArrivalProof memory p = mine(vm.getRecordedLogs(), txIndex, count);
        vm.assertEq(router.proveArrival(address(fiat), payer, a.nonce, p), value, "proven = transferred");
        vm.assertEq(router.arrived(address(fiat), payer, a.nonce), value, "recorded");
    }

    /// Without a proof of its own transfer, no (from, nonce) spends anything, even with funds in the router.
    function testFuzz_NothingSpendableWithoutProof(uint256 fromKey, bytes32 nonce, uint256 amount, bool withOther)
        public
    {
        AuthUtils.Authorization memory landed = _landed(50e6); // money in the router
        fromKey = bound(fromKey, 1, 1e30);
        address from = vm.addr(fromKey);
        vm.assume(from != payer || nonce != landed.nonce);
        amount = bound(amount, 1, 50e6);
        IPaymentRouter.ArrivalProof memory p;
        if (withOther) p = proofOf(landed);
        IPaymentRouter.PayOrder memory o = x402Order(amount, from);
        bytes memory sig = sign(o);
        vm.prank(operator);
        vm.expectRevert();
        router.attributeTransfer(o, sig, from, nonce, p);
        vm.prank(operator);
        vm.expectRevert();
        router.returnTransfer(address(fiat), from, nonce, p);
        vm.assertEq(unattributed(), landed.value, "nothing spent");
        vm.assertEq(router.arrived(address(fiat), from, nonce), 0, "nothing recorded");
    }

    // ------------------------------------------------------------ helpers

    /// @dev A front-run of `value` by the payer, mined (index 1 of 3).
    function _landed(uint256 value) internal returns (AuthUtils.Authorization memory a) {
        a = x402Auth(payer, x402Order(value, payer));
        frontRun(a, signX402(PAYER_KEY, a));
    }

    /// @dev The payer's authorization straight to USDC, logs recorded by the caller.
    function frontRunPlain(AuthUtils.Authorization memory a) internal {
        bytes memory authSig = signX402(PAYER_KEY, a);
        vm.prank(frontRunner);
        fiat.transferWithAuthorization(a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, authSig);
    }

    /// @dev Mines `receipts` (the transfer last) and proves `a` from it.
    function _proveAt(AuthUtils.Authorization memory a, bytes[] memory receipts) internal returns (uint256) {
        uint256 number = block.number;
        (IPaymentRouter.ArrivalProof memory p, bytes32 hash) =
            ArrivalProofs.prove(receipts, receipts.length - 1, number, 0);
        vm.roll(number + 1);
        vm.setBlockhash(number, hash);
        return router.proveArrival(address(fiat), a.from, a.nonce, p);
    }

    function _expectProveRevert(
        bytes memory reason,
        AuthUtils.Authorization memory a,
        IPaymentRouter.ArrivalProof memory p
    ) internal {
        vm.expectRevert(reason);
        router.proveArrival(address(fiat), a.from, a.nonce, p);
        expectAttributeRevert(reason, x402Order(a.value, a.from), a, p);
        expectReturnRevert(reason, a, p);
    }

    function _returnBy(address caller, AuthUtils.Authorization memory a) internal {
        vm.prank(caller);
        router.returnTransfer(address(fiat), a.from, a.nonce, proofOf(a));
    }
}
