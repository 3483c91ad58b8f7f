// js-ipfs 0.66.1 dependencies call Promise.withResolvers (Node >= 22); Node 20 lacks it.
// tools/ipfs_node.py loads this file through NODE_OPTIONS=--require.
if (typeof Promise.withResolvers !== 'function') {
  Promise.withResolvers = function withResolvers () {
    let resolve, reject
    const promise = new this((res, rej) => { resolve = res; reject = rej })
    return { promise, resolve, reject }
  }
}
