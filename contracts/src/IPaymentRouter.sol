// SPDX-License-Identifier: MIT
pragma solidity 0.8.30;

/// @title Trisettle PaymentRouter interface
/// @notice Splits a buyer's stablecoin payment between the service, a platform and a merchant in the
///         paying transaction, and holds the merchant's reserve until it is refunded or released.
///      A PayOrder with a captureDeadline is an authorization instead: the router holds the whole amount until
///      the operator captures all or part of it (split inside the window the signed split allows, the rest
///      back to the payer) or voids it, or, from captureDeadline on, anyone returns it to the payer (reclaim).
/// @dev Every payment and refund is authorised by an EIP-712 message signed by a service signer over the
///      domain {name: "Trisettle PaymentRouter", version: "1", chainId, verifyingContract}, so a signature
///      is bound to one chain and one router. Replay is prevented by the ids (orderId, refundId, batchId),
///      never by signature bytes.
interface IPaymentRouter {
    /// @notice What the service agreed with the platform for one order; signed by a service signer.
    /// @dev Field order is part of the EIP-712 type hash: do not reorder.
    /// @notice Proof, from the chain's own data, that a token's ERC-3009 authorization moved funds to the router:
    ///         checked by the router's ArrivalVerifier (see {proveArrival}).
    struct ArrivalProof {
        bytes header; // the RLP-encoded header of the block that holds the transfer
        uint256 txIndex; // the transaction's index in that block
        bytes[] receiptProof; // Merkle-Patricia proof nodes from header.receiptsRoot to key rlp(txIndex)
        uint256 logIndex; // position, in that receipt's logs, of the token's AuthorizationUsed log
    }

    struct PayOrder {
        bytes32 orderId; // keccak256 of the service's public order id ("ord_…")
        address token; // ERC-20 the buyer pays with (USDC); chosen by the service
        uint256 amount; // total the buyer pays, base units
        address payer; // only this address may pay; address(0) = anyone
        address merchant; // receives amount - fees - reserveHold now, and the reserve later
        address platform; // receives platformFee
        uint256 serviceFee; // to the service treasury
        uint256 platformFee; // to the platform
        uint256 reserveHold; // kept in the router against this order
        uint256 deadline; // unix seconds; last second at which payment is accepted
        uint256 captureDeadline; // 0 = paid and split at once; else an authorization, capturable while now < this
    }

    /// @notice A refund the service authorised. Paid from the order's reserve first, the rest from the submitter.
    struct RefundOrder {
        bytes32 orderId;
        bytes32 refundId; // keccak256 of the service's public refund id ("re_…"); single use
        address to; // who receives the refund: must be the order's recorded payer (enforced on chain)
        uint256 amount;
        uint256 deadline;
    }

    /// @notice What the router remembers about a paid or authorized order. An authorization has amount 0,
    ///         reserve 0 and `authorized` = the amount held; capture sets amount (the captured part) and reserve
    ///         and zeroes `authorized`; void and reclaim zero it and leave amount 0.
    struct Order {
        address token;
        bool paid;
        address payer;
        address merchant;
        uint256 amount;
        uint256 reserve; // still held by the router for this order
        uint256 refunded; // total refunded so far, from reserve and from submitters
        uint256 releaseAfter; // unix seconds: settleBatch may release the reserve from this time on (hold at payment)
        uint256 authorized; // held for this order until captured, voided or reclaimed
        uint256 captureDeadline; // the signed captureDeadline (0 for an order paid at once)
    }

    event OrderPaid(
        bytes32 indexed orderId,
        address indexed payer,
        address indexed merchant,
        address token,
        uint256 amount,
        uint256 serviceFee,
        uint256 platformFee,
        uint256 reserveHold,
        address platform,
        uint256 releaseAfter
    );
    event Refunded(
        bytes32 indexed orderId,
        bytes32 indexed refundId,
        address to,
        uint256 amount,
        uint256 fromReserve,
        uint256 fromSubmitter
    );
    event ReserveReleased(bytes32 indexed orderId, bytes32 indexed batchId, address merchant, uint256 amount);
    /// @notice The token refused the release (merchant blocklisted, token paused): reserve kept for a later batch.
    event ReserveReleaseFailed(bytes32 indexed orderId, bytes32 indexed batchId, address merchant, uint256 amount);
    /// @param orderCount number of orders whose reserve was released (= ReserveReleased events in this tx)
    event BatchSettled(bytes32 indexed batchId, uint256 orderCount, uint256 totalReleased);
    /// @notice The operator voided a signed PayOrder that was not paid: it can never be paid from now on.
    event PayOrderCancelled(bytes32 indexed orderId);
    /// @notice The operator voided a signed RefundOrder that was not executed: it can never execute from now on.
    event RefundCancelled(bytes32 indexed refundId);
    /// @notice Tokens the router held beyond the reserves it owes (e.g. sent to it directly) were moved out.
    event ExcessRecovered(address indexed token, address indexed to, uint256 amount);
    /// @notice The payer's `amount` is held by the router until capture, void or reclaim; nobody was paid.
    event OrderAuthorized(
        bytes32 indexed orderId,
        address indexed payer,
        address indexed merchant,
        address token,
        uint256 amount,
        address platform,
        uint256 captureDeadline
    );
    /// @notice `captured` of the `authorized` amount was split (an OrderPaid for it follows in the same
    ///         transaction); `returned` = authorized - captured went back to the payer.
    event OrderCaptured(bytes32 indexed orderId, uint256 authorized, uint256 captured, uint256 returned);
    /// @notice The operator released an authorization: the whole amount went back to the payer.
    event AuthorizationVoided(bytes32 indexed orderId, address indexed payer, uint256 amount);
    /// @notice The capture deadline passed and someone returned the whole authorized amount to the payer.
    event AuthorizationReclaimed(bytes32 indexed orderId, address indexed payer, uint256 amount);
    /// @notice {payOrderWithTransfer} paid `orderId` with `from`'s x402 TransferWithAuthorization `nonce` (the
    ///         OrderPaid or OrderAuthorized of the payment precedes it in the same transaction).
    event X402Settled(bytes32 indexed orderId, address indexed from, bytes32 nonce);
    /// @notice {attributeTransfer} counted the funds `from`'s authorization `nonce` moved into the router (submitted
    ///         to the token by someone else) as the payment of `orderId` (after its OrderPaid or OrderAuthorized).
    event X402Attributed(bytes32 indexed orderId, address indexed from, bytes32 nonce);
    /// @notice {returnTransfer} sent `value` of `token`, which `from`'s authorization `nonce` had moved into the
    ///         router without paying any order, back to `from`.
    event X402Returned(address indexed token, address indexed from, bytes32 nonce, uint256 value);
    /// @notice {proveArrival} recorded that `token` moved `value` from `from` to the router under `from`'s
    ///         ERC-3009 authorization `nonce` (the value {attributeTransfer} or {returnTransfer} may then spend once).
    event ArrivalProven(address indexed token, address indexed from, bytes32 indexed nonce, uint256 value);
    event ReserveHoldUpdated(uint256 previousSeconds, uint256 newSeconds);
    event SignerUpdated(address indexed signer, bool authorised);
    event OperatorUpdated(address indexed previousOperator, address indexed newOperator);
    event ServiceTreasuryUpdated(address indexed previousTreasury, address indexed newTreasury);
    /// @notice The owner registered (`enabled`) or removed a module allowed to call {payFromModule}.
    event ModuleUpdated(address indexed module, bool enabled);

    /// @notice Recovered signer is not an authorised service signer. address(0) for a malformed signature
    ///         (wrong length, including 64-byte EIP-2098 compact signatures, high-s, bad v).
    error InvalidSigner(address recovered);
    error OrderExpired(uint256 deadline, uint256 nowTs);
    error WrongPayer(address expected, address actual);
    error AlreadyPaid(bytes32 orderId);
    error ZeroAmount();
    error FeesExceedAmount(uint256 amount, uint256 serviceFee, uint256 platformFee, uint256 reserveHold);
    error ZeroAddress();
    /// @notice The router received a different amount than it pulled (fee-on-transfer or rebasing token).
    error BalanceDeltaMismatch(uint256 expected, uint256 received);
    error OrderNotPaid(bytes32 orderId);
    error RefundAlreadyUsed(bytes32 refundId);
    error RefundExceedsOrder(bytes32 orderId, uint256 requested, uint256 refundable);
    error NotOperator(address caller);
    error BatchAlreadySettled(bytes32 batchId);
    error InvalidBatchSize(uint256 size, uint256 max);
    error RenounceDisabled();
    /// @notice The operator cancelled this order before it was paid.
    error OrderCancelled(bytes32 orderId);
    /// @notice A refund pays only the payer the router recorded for the order.
    error RefundNotToPayer(address payer, address to);
    error HoldTooLong(uint256 holdSeconds, uint256 max);
    /// @notice The ERC-3009 nonce is not the one derived from this order (`expected` = hashPayOrder(order)).
    error AuthorizationNotForOrder(bytes32 expected, bytes32 nonce);
    /// @notice The ERC-3009 authorization stays valid after the order's deadline (validBefore > deadline + 1).
    error AuthorizationOutlivesOrder(uint256 validBefore, uint256 deadline);

    /// @notice An x402 payment needs a PayOrder locked to its payer (order.payer != address(0)).
    error PayerLockRequired(bytes32 orderId);
    /// @notice The router holds less of the token beyond reserved + held than the attribution or return needs.
    error InsufficientUnattributed(uint256 available, uint256 needed);
    /// @notice This (from, nonce) already paid, was attributed or was returned through the router.
    error X402NonceConsumed(address from, bytes32 nonce);
    /// @notice No arrival is recorded for (from, nonce) and no proof was given.
    error ArrivalNotProven(address from, bytes32 nonce);
    /// @notice The proven arrival is not the order's amount.
    error ArrivalValueMismatch(uint256 arrived, uint256 needed);
    /// @notice {returnTransfer} is for the operator or the payer (`from`) only.
    error NotPayerOrOperator(address caller);
    /// @notice Neither blockhash (last 256 blocks) nor the EIP-2935 history (last 8191) knows block `number`.
    error BlockHashUnavailable(uint256 number);
    /// @notice keccak256(proof.header) is `got`, not the hash `expected` the chain holds for block `number`.
    error HeaderHashMismatch(uint256 number, bytes32 expected, bytes32 got);
    /// @notice Receipt proof node `node` does not hash to its parent's reference or does not lead to rlp(txIndex).
    error ReceiptProofInvalid(uint256 node);
    /// @notice The receipt has `count` logs: no log pair starts at `logIndex`.
    error LogIndexOutOfRange(uint256 logIndex, uint256 count);
    /// @notice Log `logIndex` was emitted by `emitter`, not by `token`.
    error LogNotFromToken(uint256 logIndex, address emitter, address token);
    /// @notice Log `logIndex` is not the token's AuthorizationUsed(from, nonce).
    error NotAuthorizationUsed(uint256 logIndex, address from, bytes32 nonce);
    /// @notice Log `logIndex` is not the token's Transfer(from, `to`, value > 0) right after AuthorizationUsed.
    error NotTransferTo(uint256 logIndex, address to);
    /// @notice The proof's RLP is not well formed.
    error ArrivalProofMalformed();

    /// @notice An authorization's captureDeadline is not in the future or lies more than
    ///         MAX_AUTHORIZATION_PERIOD after the authorizing block.
    error CaptureDeadlineInvalid(uint256 captureDeadline, uint256 nowTs);
    /// @notice The order holds no authorization (never authorized, paid at once, or already captured, voided or
    ///         reclaimed).
    error NotAuthorized(bytes32 orderId);
    /// @notice The PayOrder given to capture is not the one that was authorized (hashPayOrder differs).
    error AuthorizationMismatch(bytes32 orderId);
    /// @notice Capture at or after the capture deadline.
    error CaptureExpired(uint256 captureDeadline, uint256 nowTs);
    error CaptureExceedsAuthorized(uint256 amount, uint256 authorized);
    /// @notice A leg of the captured amount's split lies outside the window the signed split allows, or the
    ///         legs add up to more than the captured amount.
    error CaptureSplitOutOfBounds(uint256 amount, uint256 serviceFee, uint256 platformFee, uint256 reserveHold);
    /// @notice Reclaim before the capture deadline.
    error CaptureNotExpired(uint256 captureDeadline, uint256 nowTs);
    /// @notice A refund of an order whose authorization was not captured (void it instead).
    error NotCaptured(bytes32 orderId);
    /// @notice {payFromModule} from an address the owner has not registered with {setModule}.
    error NotModule(address caller);

    /// @notice Pay an order: pulls `order.amount` from msg.sender (approval needed) and splits it; with a
    ///         non-zero `order.captureDeadline` it authorizes instead: the router holds the amount, pays nobody,
    ///         and emits OrderAuthorized (no OrderPaid). Same for {payOrderWithPermit} and
    ///         {payOrderWithAuthorization}.
    /// @dev An authorization also needs block.timestamp < captureDeadline <= block.timestamp +
    ///      MAX_AUTHORIZATION_PERIOD, checked after every other order check (CaptureDeadlineInvalid).
    /// @param signature 65-byte r‖s‖v signature of a service signer over the PayOrder typed data.
    function payOrder(PayOrder calldata order, bytes calldata signature) external;

    /// @notice Same as {payOrder}, with an EIP-2612 permit for `order.amount` in the same transaction.
    /// @dev A permit already used by someone who saw it in the mempool is tolerated: payment then relies on
    ///      the allowance that permit created.
    function payOrderWithPermit(
        PayOrder calldata order,
        bytes calldata signature,
        uint256 permitDeadline,
        uint8 v,
        bytes32 r,
        bytes32 s
    ) external;

    /// @notice Gasless payment: pulls exactly `order.amount` from `from` with the token's ERC-3009
    ///         `receiveWithAuthorization` (Circle's FiatTokenV2_2 `bytes signature` form) and splits it exactly as
    ///         {payOrder} does. Anyone may relay it; msg.sender pays the gas and receives nothing.
    /// @dev `from` is checked against the payer lock, recorded as the order's payer (refunds go back to it) and
    ///      emitted as OrderPaid's payer. Every {payOrder} check applies (signer, deadline, payer, unpaid, not
    ///      cancelled, fees fit), and also:
    ///      - `nonce` must equal hashPayOrder(order), the EIP-712 digest the service signed. The buyer's
    ///        authorization therefore commits to this order on this chain and router, every field included
    ///        (amount, split, deadline), and can pay nothing else; the token burns the nonce for `from`, so it
    ///        is single use, and the order's own paid flag stops any second payment of the same order.
    ///      - `validBefore <= order.deadline + 1`: ERC-3009 accepts while block.timestamp < validBefore and the
    ///        order while block.timestamp <= deadline, so the authorization cannot outlive the order.
    ///      The token checks the rest: `to` = this router, `value` = order.amount, validAfter < block.timestamp,
    ///      the signature of `from` (ECDSA, or ERC-1271 when `from` is a contract), the nonce unused, neither
    ///      party blacklisted, the token not paused. Only `to` may call receiveWithAuthorization, so an
    ///      authorization copied from the mempool cannot be front-run into a plain transfer.
    ///      (from, nonce) is marked consumed (x402Consumed): the token's AuthorizationUsed + Transfer(from, router)
    ///      logs of this pull look like a front-run x402 transfer, and must never be attributed or returned again.
    /// @param signature 65-byte service signature over the PayOrder, as for {payOrder}.
    /// @param from The buyer who signed the authorization and whose tokens are taken.
    /// @param validAfter ERC-3009 lower bound (exclusive), unix seconds.
    /// @param validBefore ERC-3009 upper bound (exclusive), unix seconds; at most order.deadline + 1.
    /// @param nonce ERC-3009 nonce; must be hashPayOrder(order).
    /// @param authorization The buyer's signature over USDC's ReceiveWithAuthorization(from, to = router,
    ///        value = order.amount, validAfter, validBefore, nonce) typed data, in the token's own EIP-712
    ///        domain: 65-byte r‖s‖v for an EOA, whatever the wallet's ERC-1271 check accepts for a contract.
    function payOrderWithAuthorization(
        PayOrder calldata order,
        bytes calldata signature,
        address from,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata authorization
    ) external;

    /// @notice x402 payment: pulls exactly `order.amount` from `from` with the token's ERC-3009
    ///         `transferWithAuthorization` (FiatTokenV2_2 `bytes signature` form), as the stock x402 `exact`
    ///         client signs it, and splits it exactly as {payOrder} does (or holds it, for an authorization with a
    ///         captureDeadline). Anyone may relay it. Emits OrderPaid (or OrderAuthorized), then X402Settled.
    /// @dev The buyer's authorization names the router and the amount but not the order (its nonce is random),
    ///      so the order is tied to it by the service: every {payOrder} check applies with payer `from`, and
    ///      - `order.payer` must be non-zero (PayerLockRequired) and equal `from`: the service signs an x402
    ///        order for the payer it verified, so an authorization copied from the mempool cannot pay some other
    ///        public order of the same amount;
    ///      - `validBefore <= order.deadline + 1` (AuthorizationOutlivesOrder);
    ///      - (from, nonce) not consumed before (X402NonceConsumed); it is marked consumed before the token call.
    ///      The token checks the rest: `to` = this router, `value` = order.amount, the window, the signature, the
    ///      nonce unused. Someone who submits the authorization to the token first makes this call revert (nonce
    ///      used); the funds then sit in the router unattributed until {attributeTransfer} or {returnTransfer}.
    /// @param signature 65-byte service signature over the PayOrder, as for {payOrder}.
    /// @param from The buyer who signed the authorization; recorded as the order's payer (refunds go to it).
    /// @param validAfter ERC-3009 lower bound (exclusive), unix seconds.
    /// @param validBefore ERC-3009 upper bound (exclusive), unix seconds; at most order.deadline + 1.
    /// @param nonce The authorization's ERC-3009 nonce (any value the client chose).
    /// @param authorization The buyer's signature over USDC's TransferWithAuthorization(from, to = router,
    ///        value = order.amount, validAfter, validBefore, nonce) in the token's EIP-712 domain.
    function payOrderWithTransfer(
        PayOrder calldata order,
        bytes calldata signature,
        address from,
        uint256 validAfter,
        uint256 validBefore,
        bytes32 nonce,
        bytes calldata authorization
    ) external;

    /// @notice Anyone: records, from `proof`, the value `token` moved from `from` to this router under `from`'s
    ///         ERC-3009 authorization `nonce`, and returns it. Idempotent: once recorded it returns the recorded
    ///         value without reading `proof`. Emits ArrivalProven the first time. Works while paused.
    /// @dev The proof holds only when (ArrivalVerifier): keccak256(header) is the hash the chain holds for the
    ///      header's block number (blockhash for the last 256 blocks, else the EIP-2935 history contract for the
    ///      last 8191 where it exists: BlockHashUnavailable, HeaderHashMismatch); the receipt is under key
    ///      rlp(txIndex) in the trie of the header's receiptsRoot (ReceiptProofInvalid); its log `logIndex` is
    ///      the token's AuthorizationUsed(from, nonce) and log `logIndex + 1` the token's Transfer(from, router,
    ///      value > 0), the pair FiatTokenV2_2 emits for one transfer (LogIndexOutOfRange, LogNotFromToken,
    ///      NotAuthorizationUsed, NotTransferTo). A cancelled authorization moved nothing and has no such logs.
    ///      The router's own ERC-3009 pulls ({payOrderWithTransfer}, {payOrderWithAuthorization}) mark (from,
    ///      nonce) consumed, so their logs, though provable, can never be spent again.
    function proveArrival(address token, address from, bytes32 nonce, ArrivalProof calldata proof)
        external
        returns (uint256 value);

    /// @notice Operator only, not while paused: counts the funds a buyer's x402 authorization already moved into
    ///         the router (someone submitted it straight to the token) as the payment of `order`, and splits or
    ///         holds them exactly as {payOrderWithTransfer} would have. No tokens come in. Emits ArrivalProven
    ///         (when this call proves it), OrderPaid (or OrderAuthorized), then X402Attributed.
    /// @dev The {payOrder} checks (service signature, payer lock == from, deadline, unpaid, not cancelled, fees
    ///      fit), (from, nonce) not consumed (then marked consumed), and:
    ///      - the arrival of (order.token, from, nonce) is recorded, or `proof` proves it ({proveArrival});
    ///      - it equals order.amount exactly (ArrivalValueMismatch);
    ///      - balanceOf(router) - reserved - held >= order.amount (InsufficientUnattributed), a sanity check.
    ///      So a stolen operator key can attribute only money this payer provably sent the router under this
    ///      nonce, once, and only to an order the service signed locked to that payer.
    function attributeTransfer(
        PayOrder calldata order,
        bytes calldata signature,
        address from,
        bytes32 nonce,
        ArrivalProof calldata proof
    ) external;

    /// @notice The operator or `from` itself, also while paused: sends the value `from`'s authorization `nonce`
    ///         provably moved into the router without paying an order (a second payer of an order already paid,
    ///         or a payment that came too late) back to `from`. Emits ArrivalProven (when this call proves it),
    ///         then X402Returned.
    /// @dev Checks: caller (NotPayerOrOperator), (from, nonce) not consumed (then marked consumed), the arrival
    ///      recorded or proven by `proof` as in {proveArrival}, and value <= balanceOf(router) - reserved - held.
    ///      The money only ever goes back to the address whose authorization moved it.
    function returnTransfer(address token, address from, bytes32 nonce, ArrivalProof calldata proof) external;

    /// @notice Capture `amount` of an authorization (operator only, not while paused): split it serviceFee to
    ///         the treasury, platformFee to the platform, amount - fees - reserveHold to the merchant, reserveHold
    ///         kept as the order's reserve (its hold runs from now), and return authorized - amount to the payer.
    ///         Emits OrderCaptured, then OrderPaid for the captured amount.
    /// @dev `order` must be the PayOrder that was authorized (its digest is stored), and block.timestamp <
    ///      captureDeadline. Each leg must lie in the window the signed full-amount split allows: with
    ///      A = authorized, c = amount, f_A the signed fee and f_c the given one, ⌊c·f_A/A⌋ <= f_c and
    ///      f_c·A < c·(f_A + 1) for serviceFee and platformFee; the same for reserveHold over the merchant's
    ///      gross g = amount - serviceFee - platformFee (g_A from the signed split), where g_A == 0 allows any
    ///      reserve up to g_c and g_c == 0 allows only 0. The service's off-chain split ⌊c·bps/10000⌋ always
    ///      lies inside; at c = A the window is the signed split exactly. So the operator key alone moves at
    ///      most about one base unit per leg, and only between the parties the service signed.
    /// @param order The authorized PayOrder, field for field.
    /// @param amount Captured part, 0 < amount <= authorized.
    function capture(
        PayOrder calldata order,
        uint256 amount,
        uint256 serviceFee,
        uint256 platformFee,
        uint256 reserveHold
    ) external;

    /// @notice Return a whole authorization to its payer (operator only, at any time, also while paused).
    function voidAuthorization(bytes32 orderId) external;

    /// @notice Return a whole authorization to its payer once block.timestamp >= captureDeadline. Anyone may call
    ///         it, also while paused; the money only ever goes to the recorded payer.
    function reclaim(bytes32 orderId) external;

    /// @notice Refund part or all of a paid order; anyone may submit a signed refund, and only the part the
    ///         order's reserve cannot cover is pulled from the submitter (approval needed for that part).
    ///         A captured authorization refunds up to the captured amount; one still held reverts NotCaptured.
    function refund(RefundOrder calldata refundOrder, bytes calldata signature) external;

    /// @notice Release the remaining reserve of each order to its merchant. Operator only, at most
    ///         MAX_BATCH_SIZE orders. Orders with nothing left to release (unpaid, released before, or
    ///         refunded from the reserve) or still inside their hold (block.timestamp < releaseAfter) are
    ///         skipped, so a refund racing the batch never blocks it; an order whose transfer the token
    ///         refuses keeps its reserve and emits ReserveReleaseFailed.
    function settleBatch(bytes32 batchId, bytes32[] calldata orderIds) external;

    /// @notice Void signed PayOrders that were not paid (operator only, at most MAX_BATCH_SIZE ids, works while
    ///         paused). Ids already paid or already cancelled are skipped: a payment mined first wins.
    function cancelOrders(bytes32[] calldata orderIds) external;

    /// @notice Void a signed RefundOrder that was not executed (operator only, works while paused). Reverts
    ///         RefundAlreadyUsed if it was executed or cancelled before.
    function cancelRefund(bytes32 refundId) external;

    /// @notice Move out what the router holds of `token` beyond the reserves and authorizations it owes
    ///         (balance - reserved - held; owner only).
    function recoverExcess(address token, address to) external;

    /// @notice Hold applied to reserves of orders paid from now on (owner only); orders keep the hold they were paid under.
    function setReserveHold(uint256 holdSeconds) external;

    /// @notice Pay `order` for `payer` on a registered module's authority (the SubscriptionManager, which holds
    ///         the payer's signed spend permission): pulls `order.amount` from the module (msg.sender; approval
    ///         needed, balance-delta checked) and splits it exactly as {payOrder}, emitting the same OrderPaid
    ///         with `payer` as the payer. Only an enabled module; not while paused.
    /// @dev Every {payOrder} check except the service signer's signature (deadline, payer lock, unpaid, not
    ///      cancelled, non-zero amount and parties, fees fit); `order.captureDeadline` must be 0, else
    ///      CaptureDeadlineInvalid (a module pays at once, it cannot authorize). `payer` is recorded as the
    ///      order's payer, so refunds go back to the subscriber.
    function payFromModule(PayOrder calldata order, address payer) external;

    /// @notice Register (`enabled` = true) or remove a module allowed to call {payFromModule} (owner only).
    function setModule(address module, bool enabled) external;

    function addSigner(address signer) external;
    function removeSigner(address signer) external;
    function setOperator(address operator) external;
    function setServiceTreasury(address treasury) external;
    function pause() external;
    function unpause() external;

    function orders(bytes32 orderId) external view returns (Order memory);
    function isSigner(address account) external view returns (bool);
    /// @notice Whether `module` may call {payFromModule}.
    function isModule(address module) external view returns (bool);
    /// @notice Executed or cancelled.
    function refundUsed(bytes32 refundId) external view returns (bool);
    function refundCancelled(bytes32 refundId) external view returns (bool);
    function orderCancelled(bytes32 orderId) external view returns (bool);
    /// @notice Σ reserves the router owes in `token`; its balance of `token` is never below this.
    function reserved(address token) external view returns (uint256);
    /// @notice Σ authorized amounts not yet captured, voided or reclaimed in `token`; the router's balance of
    ///         `token` is never below reserved + held.
    function held(address token) external view returns (uint256);
    /// @notice hashPayOrder of the PayOrder that authorized `orderId` (kept after capture, void or reclaim).
    function authorizationDigest(bytes32 orderId) external view returns (bytes32);
    function reserveHoldSeconds() external view returns (uint256);
    /// @notice Whether `from`'s ERC-3009 `nonce` already paid (x402 or gasless), was attributed or was returned
    ///         through the router.
    function x402Consumed(address from, bytes32 nonce) external view returns (bool);
    /// @notice The value `token` provably moved from `from` to the router under authorization `nonce`; 0 = not
    ///         proven ({proveArrival}).
    function arrived(address token, address from, bytes32 nonce) external view returns (uint256);
    /// @notice The stateless ArrivalVerifier this router deployed in its constructor.
    function arrivalVerifier() external view returns (address);
    function batchSettled(bytes32 batchId) external view returns (bool);
    function operator() external view returns (address);
    function serviceTreasury() external view returns (address);
    /// @notice EIP-712 digest a signer signs for `order` on this chain and router.
    function hashPayOrder(PayOrder calldata order) external view returns (bytes32);
    function hashRefundOrder(RefundOrder calldata refundOrder) external view returns (bytes32);
    function DOMAIN_SEPARATOR() external view returns (bytes32);
}
