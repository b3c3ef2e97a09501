// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../../src/IPaymentRouter.sol";
import {PaymentRouter} from "../../src/PaymentRouter.sol";
import {ArrivalProofs} from "../utils/ArrivalProofs.sol";
import {AuthUtils} from "../utils/AuthUtils.sol";
import {IFiatTokenV2_2} from "../utils/CircleUSDC.sol";
import {SigUtils} from "../utils/SigUtils.sol";
import {Vm} from "../utils/Vm.sol";
import {X402Utils} from "../utils/X402Utils.sol";
import {GaslessHandler} from "./GaslessHandler.sol";

/// @notice GaslessHandler plus the x402 paths over the same orders, payers, pauses and blacklists: orders locked
///         to a payer, the router relaying a TransferWithAuthorization (with faults), a third party front-running
///         one straight to USDC (each landing mined into a block whose receipt carries the token's real logs),
///         anyone proving an arrival, the operator attributing it (to its order, another order, or with another
///         transfer's proof) or returning it (or the payer itself, or a stranger), payers cancelling
///         authorizations, and a stolen operator + signer key trying to spend cancelled nonces. Each router call is
///         booked against the model's exact prediction; per payer, the model books what arrived, was attributed
///         and was returned.
contract X402Handler is GaslessHandler {
    enum X {
        NewLockedOrder,
        PayX402,
        FrontRun,
        Attribute,
        Return,
        Prove,
        Cancel,
        Attack
    }

    uint256 public constant X_ACTION_COUNT = 8;
    /// @dev blockhash reaches back 256 blocks; the test chain has no EIP-2935 history contract.
    uint256 internal constant WINDOW = 256;

    /// @dev An authorization that moved funds into the router (relayed, or front-run); consumed once counted.
    struct Landed {
        AuthUtils.Authorization auth;
        uint256 key;
        uint256 orderIndex;
        bool consumed;
        bool proven; // the router recorded its arrival
        uint256 minedAt; // the block that holds it
        bytes32 blockHash; // that block's hash
        bytes proof; // abi-encoded ArrivalProof
    }

    /// @dev A nonce its payer cancelled at the token: no funds ever moved under it.
    struct Cancelled {
        address from;
        bytes32 nonce;
    }

    Stats[8] internal _xStats;
    Landed[] internal _landed;
    Cancelled[] internal _cancelled;
    /// @dev Per payer: front-run value that landed in the router, and what of it was attributed or returned.
    mapping(address from => uint256) public ghostArrived;
    mapping(address from => uint256) public ghostAttributed;
    mapping(address from => uint256) public ghostReturned;
    /// @dev Funds the model has in the router that no order or return accounted for yet.
    uint256 public ghostUnattributed;
    uint256 internal _xNonce;
    /// @dev The next block to mine: the campaign may not carry block.number and cheatcode block hashes from one
    ///      call to the next, so every action that mines or proves restores them (_syncChain).
    uint256 internal _chainHead;

    constructor(
        PaymentRouter router_,
        IFiatTokenV2_2 fiat_,
        address owner_,
        address operator_,
        address blacklister_,
        address pauser_
    ) GaslessHandler(router_, fiat_, owner_, operator_, blacklister_, pauser_) {}

    function xStats(uint256 action) external view returns (Stats memory) {
        return _xStats[action];
    }

    function landedCount() external view returns (uint256) {
        return _landed.length;
    }

    function landedAt(uint256 i) external view returns (AuthUtils.Authorization memory, bool consumed, bool proven) {
        return (_landed[i].auth, _landed[i].consumed, _landed[i].proven);
    }

    function cancelledCount() external view returns (uint256) {
        return _cancelled.length;
    }

    function cancelledAt(uint256 i) external view returns (address from, bytes32 nonce) {
        return (_cancelled[i].from, _cancelled[i].nonce);
    }

    function payerAt(uint256 i) external pure returns (address) {
        return payer(i);
    }

    function payerCount() external pure returns (uint256) {
        return PAYERS;
    }

    // ---------------------------------------------------------------- actions

    /// An x402 order: locked to payer(`seed`), 1..10,000 USDC, live 1..4 hours.
    function newLockedOrder(uint256 amount, uint256 seed) external {
        this.newOrder(amount, 0);
        IPaymentRouter.PayOrder storage o = _orders[_orders.length - 1];
        o.payer = payer(seed);
        o.deadline = block.timestamp + 1 hours * (1 + (seed >> 8) % 4);
        _succeeded(_xStats[uint256(X.NewLockedOrder)]);
    }

    /// The relayer submits payer(`who`)'s x402 authorization through the router. `fault`: 0 none, 1 validBefore
    /// past the deadline, 2 expired, 3 signed by a stranger, 4 signed for another value, 5 a nonce the router
    /// already counted, 6 a nonce a front-runner already used at the token.
    function payX402(uint256 orderSeed, uint256 who, uint256 fault) external {
        if (_orders.length == 0) return _xSkip(X.PayX402);
        uint256 idx = _pick(orderSeed);
        IPaymentRouter.PayOrder memory o = _orders[idx];
        fault = fault % 14;
        if (fault >= 7 || (fault >= 5 && _landed.length == 0)) fault = 0;
        (AuthUtils.Authorization memory a, uint256 key) = _freshAuth(o, payer(who), payerKey(who));
        if (fault >= 5) {
            Landed storage l = _landed[(who >> 8) % _landed.length];
            if (l.consumed != (fault == 5)) return _xSkip(X.PayX402);
            (a.nonce, a.from, key) = (l.auth.nonce, l.auth.from, l.key);
        }
        if (fault == 1) a.validBefore = o.deadline + 2;
        if (fault == 2) a.validBefore = block.timestamp;
        if (fault == 3) key = 0xBAD;
        AuthUtils.Authorization memory signed = _copy(a);
        if (fault == 4) signed.value = a.value + 1;
        bytes memory authSig = X402Utils.sign(key, fiat, signed);
        bytes memory expected = _expectPay(o, a, fault);
        bytes memory sig = SigUtils.signPay(0xA11CE, o, address(router));
        vm.recordLogs();
        vm.prank(relayer);
        try router.payOrderWithTransfer(o, sig, a.from, a.validAfter, a.validBefore, a.nonce, authSig) {
            Vm.Log[] memory logs = vm.getRecordedLogs();
            if (_book(X.PayX402, true, "", expected)) {
                _paid(o, a.from, false);
                // Its receipt holds the same AuthorizationUsed + Transfer(from, router) pair a front-run leaves.
                _land(a, key, idx, true, logs);
            }
        } catch (bytes memory err) {
            vm.getRecordedLogs();
            _book(X.PayX402, false, err, expected);
        }
    }

    /// A third party submits a good x402 authorization for an order straight to USDC (usually from the order's
    /// locked payer, one in four from payer(`who`)). Not a router call: skipped when the token would refuse it.
    function frontRun(uint256 orderSeed, uint256 who) external {
        if (_orders.length == 0 || ghostTokenPaused) return _xSkip(X.FrontRun);
        uint256 idx = orderSeed % 4 != 0 ? _newestOpen(orderSeed) : _pick(orderSeed);
        IPaymentRouter.PayOrder memory o = _orders[idx];
        uint256 key = o.payer != address(0) && who % 4 != 0 ? _keyOf(o.payer) : payerKey(who);
        (AuthUtils.Authorization memory a,) = _freshAuth(o, vm.addr(key), key);
        if (_ghostBlacklisted[_payerIndex(a.from)]) return _xSkip(X.FrontRun);
        bytes memory authSig = X402Utils.sign(key, fiat, a);
        vm.recordLogs();
        vm.prank(makeAddr("front-runner"));
        fiat.transferWithAuthorization(a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, authSig);
        _land(a, key, idx, false, vm.getRecordedLogs());
        ghostArrived[a.from] += a.value;
        ghostUnattributed += a.value;
        ghostBalance[a.from] -= a.value;
        _succeeded(_xStats[uint256(X.FrontRun)]);
    }

    /// The operator attributes a landed authorization. `fault`: 0 to its own order, 1 to another order, 2 with the
    /// proof of another landed transfer.
    function attribute(uint256 landedSeed, uint256 orderSeed, uint256 fault) external {
        if (_landed.length == 0) return _xSkip(X.Attribute);
        _syncChain();
        uint256 li = _pickLanded(landedSeed);
        Landed storage l = _landed[li];
        fault = fault % 6;
        if (fault >= 3 || (fault == 2 && _landed.length < 2)) fault = 0;
        IPaymentRouter.PayOrder memory o = _orders[fault == 1 ? _pick(orderSeed) : l.orderIndex];
        AuthUtils.Authorization memory a = l.auth;
        uint256 pi = fault == 2 ? (li + 1 + (orderSeed >> 8) % (_landed.length - 1)) % _landed.length : li;
        bytes memory expected = _expectX402Order(o, a, false);
        if (expected.length == 0) expected = _expectSpend(l, _landed[pi], o.amount);
        if (expected.length == 0 && ghostTokenPaused) expected = _error("Pausable: paused"); // the split's first
        bytes memory sig = SigUtils.signPay(0xA11CE, o, address(router));
        vm.prank(operator);
        try router.attributeTransfer(o, sig, a.from, a.nonce, _proofOf(_landed[pi])) {
            if (_book(X.Attribute, true, "", expected)) {
                (l.consumed, l.proven) = (true, true);
                ghostUnattributed -= o.amount;
                ghostAttributed[a.from] += o.amount;
                ghostPaid[o.orderId] = true;
                ghostPayer[o.orderId] = a.from;
                ghostReserve += o.reserveHold;
            }
        } catch (bytes memory err) {
            _book(X.Attribute, false, err, expected);
        }
    }

    /// A landed authorization goes back to its payer. `fault` % 4: 0 the operator, 1 the operator with the proof of
    /// another landed transfer, 2 a stranger (refused), 3 the payer itself.
    function returnLanded(uint256 landedSeed, uint256 fault) external {
        if (_landed.length == 0) return _xSkip(X.Return);
        _syncChain();
        uint256 li = _pickLanded(landedSeed);
        Landed storage l = _landed[li];
        AuthUtils.Authorization memory a = l.auth;
        fault = fault % 4;
        if (fault == 1 && _landed.length < 2) fault = 0;
        uint256 pi = fault == 1 ? (li + 1 + (landedSeed >> 8) % (_landed.length - 1)) % _landed.length : li;
        address caller = fault == 2 ? makeAddr("stranger") : fault == 3 ? a.from : operator;
        bytes memory expected;
        if (fault == 2) expected = abi.encodeWithSelector(IPaymentRouter.NotPayerOrOperator.selector, caller);
        else expected = _expectSpend(l, _landed[pi], a.value);
        if (expected.length == 0) expected = _expectToken(a.from);
        vm.prank(caller);
        try router.returnTransfer(address(fiat), a.from, a.nonce, _proofOf(_landed[pi])) {
            if (_book(X.Return, true, "", expected)) {
                (l.consumed, l.proven) = (true, true);
                ghostUnattributed -= a.value;
                ghostReturned[a.from] += a.value;
                ghostBalance[a.from] += a.value;
            }
        } catch (bytes memory err) {
            _book(X.Return, false, err, expected);
        }
    }

    /// Anyone proves a landed transfer's arrival (idempotent; refused once its block left the window).
    function prove(uint256 landedSeed) external {
        if (_landed.length == 0) return _xSkip(X.Prove);
        _syncChain();
        Landed storage l = _landed[_pickLanded(landedSeed)];
        bytes memory expected = l.proven ? bytes("") : _expectProof(l, l);
        vm.prank(makeAddr("anyone"));
        try router.proveArrival(address(fiat), l.auth.from, l.auth.nonce, _proofOf(l)) returns (uint256 value) {
            if (_book(X.Prove, true, "", expected)) {
                l.proven = true;
                if (value != l.auth.value) _book(X.Prove, false, "proven value", "transfer value");
            }
        } catch (bytes memory err) {
            _book(X.Prove, false, err, expected);
        }
    }

    /// payer(`who`) cancels a fresh ERC-3009 nonce at the token: nothing moves.
    function cancelAuthorization(uint256 who) external {
        if (ghostTokenPaused) return _xSkip(X.Cancel);
        bytes32 nonce = keccak256(abi.encode("cancelled", ++_xNonce));
        bytes memory sig = X402Utils.signCancel(payerKey(who), payer(who), fiat, nonce);
        fiat.cancelAuthorization(payer(who), nonce, sig);
        _cancelled.push(Cancelled(payer(who), nonce));
        _succeeded(_xStats[uint256(X.Cancel)]);
    }

    /// A stolen operator + signer key tries to spend a cancelled nonce: `kind` % 4: attribute it to an order the
    /// thief signs locked to its payer (0 without a proof, 1 with another transfer's proof), or return it (2, 3).
    /// Must always be refused.
    function attackCancelled(uint256 cancelledSeed, uint256 amount, uint256 kind) external {
        if (_cancelled.length == 0) return _xSkip(X.Attack);
        _syncChain();
        Cancelled memory c = _cancelled[cancelledSeed % _cancelled.length];
        kind = kind % 4;
        bool withProof = kind % 2 == 1 && _landed.length != 0;
        IPaymentRouter.ArrivalProof memory proof;
        bytes memory expected = abi.encodeWithSelector(IPaymentRouter.ArrivalNotProven.selector, c.from, c.nonce);
        if (withProof) {
            Landed storage other = _landed[(cancelledSeed >> 8) % _landed.length];
            proof = _proofOf(other);
            expected = _expectProofFor(other, c.from, c.nonce);
        }
        vm.startPrank(operator);
        if (kind < 2) {
            IPaymentRouter.PayOrder memory o = _thiefOrder(c.from, amount);
            if (ghostRouterPaused) expected = abi.encodeWithSignature("EnforcedPause()");
            try router.attributeTransfer(o, SigUtils.signPay(0xA11CE, o, address(router)), c.from, c.nonce, proof) {
                if (_book(X.Attack, true, "", expected)) ghostAttributed[c.from] += o.amount;
            } catch (bytes memory err) {
                _book(X.Attack, false, err, expected);
            }
        } else {
            try router.returnTransfer(address(fiat), c.from, c.nonce, proof) {
                if (_book(X.Attack, true, "", expected)) ghostReturned[c.from] += 1; // any amount: a breach
            } catch (bytes memory err) {
                _book(X.Attack, false, err, expected);
            }
        }
        vm.stopPrank();
    }

    // ---------------------------------------------------------------- model

    function _expectPay(IPaymentRouter.PayOrder memory o, AuthUtils.Authorization memory a, uint256 fault)
        internal
        view
        returns (bytes memory expected)
    {
        expected = _expectX402Order(o, a, true);
        if (expected.length != 0) return expected;
        if (fault == 5) return abi.encodeWithSelector(IPaymentRouter.X402NonceConsumed.selector, a.from, a.nonce);
        expected = _expectToken(a.from);
        if (expected.length != 0) return expected;
        if (block.timestamp >= a.validBefore) return _error("FiatTokenV2: authorization is expired");
        if (fault == 6) return _error("FiatTokenV2: authorization is used or canceled");
        if (fault == 3 || fault == 4) return _error("FiatTokenV2: invalid signature");
        return "";
    }

    /// @dev After the caller and order checks, spending landed `l` with the proof of landed `p`: consumed, then the
    ///      arrival (recorded, or proven from p's proof), then its value against `needed`, then the balance.
    function _expectSpend(Landed storage l, Landed storage p, uint256 needed) internal view returns (bytes memory) {
        AuthUtils.Authorization memory a = l.auth;
        if (l.consumed) return abi.encodeWithSelector(IPaymentRouter.X402NonceConsumed.selector, a.from, a.nonce);
        if (!l.proven) {
            bytes memory proofError = _expectProof(p, l);
            if (proofError.length != 0) return proofError;
        }
        if (a.value != needed) {
            return abi.encodeWithSelector(IPaymentRouter.ArrivalValueMismatch.selector, a.value, needed);
        }
        if (ghostUnattributed < needed) {
            return abi.encodeWithSelector(IPaymentRouter.InsufficientUnattributed.selector, ghostUnattributed, needed);
        }
        return "";
    }

    /// @dev What proving landed `l`'s (from, nonce) with landed `p`'s proof does.
    function _expectProof(Landed storage p, Landed storage l) internal view returns (bytes memory) {
        return _expectProofFor(p, l.auth.from, l.auth.nonce);
    }

    /// @dev p's proof for (from, nonce): refused once p's block left the window, else accepted only for p's own
    ///      (from, nonce) (its log pair is AuthorizationUsed(p.from, p.nonce)).
    function _expectProofFor(Landed storage p, address from, bytes32 nonce) internal view returns (bytes memory) {
        if (block.number - p.minedAt > WINDOW) {
            return abi.encodeWithSelector(IPaymentRouter.BlockHashUnavailable.selector, p.minedAt);
        }
        if (p.auth.from != from || p.auth.nonce != nonce) {
            uint256 logIndex = _proofOf(p).logIndex;
            return abi.encodeWithSelector(IPaymentRouter.NotAuthorizationUsed.selector, logIndex, from, nonce);
        }
        return "";
    }

    /// @dev Pause, payer lock, the order checks for payer `a.from`, and (relay only) the validBefore bound, in the
    ///      router's order.
    function _expectX402Order(IPaymentRouter.PayOrder memory o, AuthUtils.Authorization memory a, bool relay)
        internal
        view
        returns (bytes memory expected)
    {
        if (ghostRouterPaused) return abi.encodeWithSignature("EnforcedPause()");
        if (o.payer == address(0)) return abi.encodeWithSelector(IPaymentRouter.PayerLockRequired.selector, o.orderId);
        expected = _expectOrder(o, a.from);
        if (expected.length != 0) return expected;
        if (relay && a.validBefore > o.deadline + 1) {
            return abi.encodeWithSelector(IPaymentRouter.AuthorizationOutlivesOrder.selector, a.validBefore, o.deadline);
        }
    }

    /// @dev As the stock client: valid from 10 minutes ago for 5 minutes, but never past the order's deadline + 1.
    function _freshAuth(IPaymentRouter.PayOrder memory o, address from, uint256 key)
        internal
        returns (AuthUtils.Authorization memory a, uint256)
    {
        uint256 validBefore = block.timestamp + 5 minutes;
        if (validBefore > o.deadline + 1 && o.deadline >= block.timestamp) validBefore = o.deadline + 1;
        a = AuthUtils.Authorization(
            from, address(router), o.amount, block.timestamp - 10 minutes, validBefore, keccak256(abi.encode(++_xNonce))
        );
        return (a, key);
    }

    /// @dev The newest order still payable (unpaid, not cancelled, not expired), else one picked as usual.
    function _newestOpen(uint256 seed) internal view returns (uint256) {
        for (uint256 i = _orders.length; i > 0; --i) {
            IPaymentRouter.PayOrder storage o = _orders[i - 1];
            if (!ghostPaid[o.orderId] && !ghostCancelled[o.orderId] && o.deadline >= block.timestamp) return i - 1;
        }
        return _pick(seed);
    }

    /// @dev Three times in four the newest landed authorization not yet counted (if any), else any.
    function _pickLanded(uint256 seed) internal view returns (uint256) {
        if (seed % 4 != 0) {
            for (uint256 i = _landed.length; i > 0; --i) {
                if (!_landed[i - 1].consumed) return i - 1;
            }
        }
        return (seed >> 2) % _landed.length;
    }

    function _keyOf(address who) internal pure returns (uint256) {
        return payerKey(_payerIndex(who));
    }

    /// @dev Mines the landing's block (the transfer at index 1 of 3 receipts) and books it.
    function _land(AuthUtils.Authorization memory a, uint256 key, uint256 idx, bool consumed, Vm.Log[] memory logs)
        internal
    {
        _syncChain();
        IPaymentRouter.ArrivalProof memory proof = ArrivalProofs.mine(vm, logs, 1, 3);
        _chainHead = block.number;
        _landed.push(Landed(a, key, idx, consumed, false, block.number - 1, keccak256(proof.header), abi.encode(proof)));
    }

    /// @dev Brings back the chain this handler mined: the height, and the hashes of the blocks it holds.
    function _syncChain() internal {
        if (block.number < _chainHead) vm.roll(_chainHead);
        for (uint256 i; i < _landed.length; ++i) {
            vm.setBlockhash(_landed[i].minedAt, _landed[i].blockHash);
        }
    }

    function _proofOf(Landed storage l) internal view returns (IPaymentRouter.ArrivalProof memory) {
        return abi.decode(l.proof, (IPaymentRouter.ArrivalProof));
    }

    /// @dev A fresh order the thief signs with the stolen signer key, locked to `from`: unpaid and payable.
    function _thiefOrder(address from, uint256 amount) internal returns (IPaymentRouter.PayOrder memory o) {
        o = IPaymentRouter.PayOrder({
            orderId: keccak256(abi.encode("thief", ++_xNonce)),
            token: address(fiat),
            amount: 1 + amount % 10_000e6,
            payer: from,
            merchant: makeAddr("thief"),
            platform: platform,
            serviceFee: 0,
            platformFee: 0,
            reserveHold: 0,
            deadline: block.timestamp + 1 hours,
            captureDeadline: 0
        });
    }

    function _copy(AuthUtils.Authorization memory a) internal pure returns (AuthUtils.Authorization memory) {
        return AuthUtils.Authorization(a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce);
    }

    function _book(X x, bool ok, bytes memory err, bytes memory expected) internal returns (bool) {
        _tally(_xStats[uint256(x)], "x402 action ", uint256(x), ok, err, expected);
        return ok;
    }

    function _xSkip(X x) internal {
        _skipped(_xStats[uint256(x)]);
    }
}
