/** This package's version, sent as `clientInfo.version`. */
export const VERSION = '0.1.0';
