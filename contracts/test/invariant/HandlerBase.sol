// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

import {IPaymentRouter} from "../../src/IPaymentRouter.sol";
import {PaymentRouter} from "../../src/PaymentRouter.sol";
import {TestUSDC} from "../../src/TestUSDC.sol";
import {HandlerStats} from "./HandlerStats.sol";

/// @notice State, ghost books and the outcome model shared by the handler's actions. Every router call is
///         made inside try/catch and compared with the outcome the model predicts (empty = success, else the
///         exact revert data), so a call that succeeds where it should revert, or reverts with anything but
///         the predicted error, is counted as unexpected instead of vanishing into fail_on_revert = false.
abstract contract HandlerBase is HandlerStats {
    enum Action {
        NewOrder,
        Pay,
        PayWithPermit,
        NewRefund,
        Refund,
        CancelOrders,
        CancelRefund,
        Settle,
        Warp,
        Pause,
        Unpause,
        AddSigner,
        RemoveSigner,
        DirectTransfer,
        RecoverExcess,
        SetHold,
        Authorize,
        Capture,
        VoidAuthorization,
        Reclaim
    }

    uint256 public constant ACTION_COUNT = 20;

    struct Signed {
        IPaymentRouter.PayOrder order;
        uint256 signerIndex;
    }

    struct SignedRefund {
        IPaymentRouter.RefundOrder refund;
        uint256 signerIndex;
    }

    uint256 internal constant APPROVERS = 3; // actors 0..2 approved the router for everything
    uint256 internal constant ACTORS = 6; // actors 3..5 hold no allowance and pay with EIP-2612 permits
    uint256 internal constant SIGNERS = 3;

    PaymentRouter public immutable router;
    TestUSDC public immutable usdc;
    address public immutable owner;
    address public immutable operator;
    address public immutable funder;
    address public immutable merchant;
    address public immutable platform;

    Stats[20] internal _stats;
    mapping(bytes4 errorSelector => uint256) public revertsBy; // predicted reverts, by custom error

    bytes32[] public orderIds;
    mapping(bytes32 orderId => Signed) internal _signed;
    SignedRefund[] internal _refunds;

    // The model of the router's state, kept only from calls the handler saw succeed.
    mapping(bytes32 orderId => bool) public ghostPaid;
    mapping(bytes32 orderId => bool) public ghostCancelled;
    mapping(bytes32 orderId => uint256) public ghostOrderReserve;
    mapping(bytes32 orderId => uint256) public ghostReleaseAfter; // paid at + the hold in force then
    mapping(bytes32 refundId => bool) public ghostRefundUsed;
    mapping(bytes32 refundId => bool) public ghostRefundCancelled;
    mapping(bytes32 batchId => bool) internal _ghostBatchSettled;
    bool[3] internal _ghostSigner;
    bool public ghostPaused;
    uint256 public ghostHold;
    uint256 public ghostReleases; // reserves (> 0) settleBatch paid out
    uint256 public ghostCancelsWhilePaused; // cancelOrders / cancelRefund that succeeded on a paused router
    uint256 public ghostReserve; // Σ reserves owed
    uint256 public ghostExcess; // Σ direct transfers − Σ recovered
    // Authorizations (PayOrders with a captureDeadline).
    mapping(bytes32 orderId => address) public ghostPayer;
    mapping(bytes32 orderId => uint256) public ghostAuthorized; // still held for the order
    mapping(bytes32 orderId => uint256) public ghostAuthorizedAt; // what was authorized (0: paid at once)
    uint256 public ghostHeld; // Σ ghostAuthorized
    uint256 public ghostCaptures; // captures that succeeded
    uint256 public ghostPartialCaptures; // … of less than the authorized amount
    uint256 public ghostReturns; // voids and reclaims that succeeded
    bytes32 internal _lastBatch;

    // Property violations, each must stay 0.
    uint256 public ghostDoublePays;
    uint256 public ghostCancelledPaid;
    uint256 public ghostOverRefunds;
    uint256 public ghostRefundsToStrangers;
    uint256 public ghostEarlyReleases;
    uint256 public ghostBadRecoveries; // recoverExcess moved anything but balance − reserved
    uint256 public ghostBadMoves; // a call moved other amounts than the model (pay, refund, release, events)
    uint256 public ghostStrangerGains; // an escrow call paid anyone but the payer and the signed parties
    uint256 public ghostOverCaptures; // a capture above the authorized amount
    uint256 public ghostLateCaptures; // a capture at or after its captureDeadline

    uint256 internal _nonce;

    constructor(PaymentRouter router_, TestUSDC usdc_, address owner_, address operator_) {
        router = router_;
        usdc = usdc_;
        owner = owner_;
        operator = operator_;
        funder = makeAddr("funder");
        merchant = makeAddr("merchant");
        platform = makeAddr("platform");
        for (uint256 i; i < APPROVERS; ++i) {
            vm.prank(actor(i));
            usdc.approve(address(router), type(uint256).max);
        }
        vm.prank(funder);
        usdc.approve(address(router), type(uint256).max);
        _ghostSigner[0] = true; // the constructor's signer
        ghostHold = router_.reserveHoldSeconds();
    }

    function actorKey(uint256 seed) public pure returns (uint256) {
        return 0x1000 + (seed % ACTORS);
    }

    function actor(uint256 seed) public pure returns (address) {
        return vm.addr(actorKey(seed));
    }

    function signerKey(uint256 index) public pure returns (uint256) {
        return [uint256(0xA11CE), 0x5161, 0x5162][index % SIGNERS];
    }

    function orderCount() external view returns (uint256) {
        return orderIds.length;
    }

    function refundCount() external view returns (uint256) {
        return _refunds.length;
    }

    function stats(uint256 action) external view returns (Stats memory) {
        return _stats[action];
    }

    function ghostSigner(uint256 index) external view returns (bool) {
        return _ghostSigner[index % SIGNERS];
    }

    function refundIdAt(uint256 index) external view returns (bytes32) {
        return _refunds[index].refund.refundId;
    }

    function _skip(Action a) internal {
        _skipped(_stats[uint256(a)]);
    }

    function _done(Action a) internal {
        _succeeded(_stats[uint256(a)]);
    }

    /// @dev Books one router call against the prediction; true when it succeeded (predicted or not), so the
    ///      ghosts follow what really happened and the invariants judge it.
    function _record(Action a, bool ok, bytes memory err, bytes memory expected) internal returns (bool) {
        if (_tally(_stats[uint256(a)], "action ", uint256(a), ok, err, expected)) ++revertsBy[bytes4(err)];
        return ok;
    }

    function _expectOwner(address caller) internal view returns (bytes memory) {
        if (caller != owner) return abi.encodeWithSignature("OwnableUnauthorizedAccount(address)", caller);
        return "";
    }

    /// @dev Mostly the owner, one call in eight from an actor, to show owner-only functions stay owner-only.
    function _adminCaller(uint256 seed) internal view returns (address) {
        return seed % 8 == 0 ? actor(seed >> 3) : owner;
    }

    /// @dev Mostly the operator, one call in eight from an actor, to show operator-only functions stay so.
    function _operatorCaller(uint256 seed) internal view returns (address) {
        return seed % 8 == 0 ? actor(seed >> 3) : operator;
    }

    function _expectOperator(address caller) internal view returns (bytes memory) {
        if (caller != operator) return abi.encodeWithSelector(IPaymentRouter.NotOperator.selector, caller);
        return "";
    }

    /// @dev An authorised signer three times in four (the first one from `seed` on), else any, maybe removed.
    function _pickSigner(uint256 seed) internal view returns (uint256) {
        if (seed % 4 != 0) {
            for (uint256 i; i < SIGNERS; ++i) {
                uint256 index = (seed % SIGNERS + i) % SIGNERS;
                if (_ghostSigner[index]) return index;
            }
        }
        return (seed >> 2) % SIGNERS;
    }

    /// @dev Three times in four one of the four newest entries (fresh orders and refunds are the ones that
    ///      can still succeed), else any: old ones meet expired deadlines, spent ids, cancellations.
    function _pick(uint256 seed, uint256 len) internal pure returns (uint256) {
        if (seed % 4 != 0) return len - 1 - (seed >> 2) % (len < 4 ? len : 4);
        return (seed >> 2) % len;
    }

    /// @dev Saturating: a model that drifted shows up in the invariants, not as a swallowed handler revert.
    function _sub(uint256 a, uint256 b) internal returns (uint256) {
        if (b > a) {
            ++ghostBadMoves;
            return 0;
        }
        return a - b;
    }

    function _isApprover(address who) internal pure returns (bool) {
        for (uint256 i; i < APPROVERS; ++i) {
            if (who == actor(i)) return true;
        }
        return false;
    }
}
