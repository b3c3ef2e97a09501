/**
 * The contract calls the checkout page makes. The PayOrder tuple mirrors IPaymentRouter.PayOrder (field
 * order is part of the EIP-712 type hash). Kept as a minimal fragment so the web bundle does not pull the
 * server's artifact module.
 */
const payOrderTuple = {
  name: 'order',
  type: 'tuple',
  internalType: 'struct IPaymentRouter.PayOrder',
  components: [
    { name: 'orderId', type: 'bytes32' },
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
    { name: 'payer', type: 'address' },
    { name: 'merchant', type: 'address' },
    { name: 'platform', type: 'address' },
    { name: 'serviceFee', type: 'uint256' },
    { name: 'platformFee', type: 'uint256' },
    { name: 'reserveHold', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

export const paymentRouterAbi = [
  {
    type: 'function',
    name: 'payOrder',
    stateMutability: 'nonpayable',
    inputs: [payOrderTuple, { name: 'signature', type: 'bytes' }],
    outputs: [],
  },
  {
    type: 'function',
    name: 'payOrderWithPermit',
    stateMutability: 'nonpayable',
    inputs: [
      payOrderTuple,
      { name: 'signature', type: 'bytes' },
      { name: 'permitDeadline', type: 'uint256' },
      { name: 'v', type: 'uint8' },
      { name: 'r', type: 'bytes32' },
      { name: 's', type: 'bytes32' },
    ],
    outputs: [],
  },
  { type: 'error', name: 'InvalidSigner', inputs: [{ name: 'recovered', type: 'address' }] },
  { type: 'error', name: 'OrderExpired', inputs: [{ name: 'deadline', type: 'uint256' }, { name: 'nowTs', type: 'uint256' }] },
  { type: 'error', name: 'WrongPayer', inputs: [{ name: 'expected', type: 'address' }, { name: 'actual', type: 'address' }] },
  { type: 'error', name: 'AlreadyPaid', inputs: [{ name: 'orderId', type: 'bytes32' }] },
  { type: 'error', name: 'EnforcedPause', inputs: [] },
  {
    type: 'error',
    name: 'ERC20InsufficientBalance',
    inputs: [{ name: 'sender', type: 'address' }, { name: 'balance', type: 'uint256' }, { name: 'needed', type: 'uint256' }],
  },
  {
    type: 'error',
    name: 'ERC20InsufficientAllowance',
    inputs: [{ name: 'spender', type: 'address' }, { name: 'allowance', type: 'uint256' }, { name: 'needed', type: 'uint256' }],
  },
] as const;

export const erc20Abi = [
  { type: 'function', name: 'balanceOf', stateMutability: 'view', inputs: [{ name: 'owner', type: 'address' }], outputs: [{ type: 'uint256' }] },
  {
    type: 'function',
    name: 'allowance',
    stateMutability: 'view',
    inputs: [{ name: 'owner', type: 'address' }, { name: 'spender', type: 'address' }],
    outputs: [{ type: 'uint256' }],
  },
  {
    type: 'function',
    name: 'approve',
    stateMutability: 'nonpayable',
    inputs: [{ name: 'spender', type: 'address' }, { name: 'amount', type: 'uint256' }],
    outputs: [{ type: 'bool' }],
  },
  { type: 'function', name: 'name', stateMutability: 'view', inputs: [], outputs: [{ type: 'string' }] },
  { type: 'function', name: 'version', stateMutability: 'view', inputs: [], outputs: [{ type: 'string' }] },
  { type: 'function', name: 'nonces', stateMutability: 'view', inputs: [{ name: 'owner', type: 'address' }], outputs: [{ type: 'uint256' }] },
] as const;
