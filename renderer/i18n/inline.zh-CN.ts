/** 插件站点的内联模式（nginx 让请求经过 Rampart）的中文文本；并入 zh-CN.ts。 */
export const inlineZhCN = {
  'inline.title': '请求体',
  'inline.help':
    '默认情况下 nginx 只把每个请求的请求头交给 Rampart 判定（auth_request），请求体中携带的攻击会被放行。内联模式下 nginx 让每个请求都经过 Rampart，由 Rampart 检查请求体和响应，再转发到您的上游。',
  'inline.mode': 'nginx 询问 Rampart 的方式',
  'inline.verdict': '仅判定（auth_request，不含请求体）',
  'inline.inline': '内联：每个请求都经过 Rampart（检查请求体）',
  'inline.cost':
    '内联模式下每个字节都经过 Rampart：多一跳网络，上游应答以未压缩形式获取（请让 nginx 压缩），Rampart 停止时请求会得到 502。切换后请重新下载插件包。',
  'inline.port': 'Rampart 为此站点监听的端口',
  'inline.portHelp': 'nginx 把请求转到这里（明文 HTTP：TLS 仍由 nginx 终止）。默认 {value}。',
  'inline.upstream': '上游地址',
  'inline.upstreamHelp': 'nginx 的 location 原先转发的目标：IP 地址或主机名加端口。',
  'inline.upstreamProtocol': '上游协议',
} as const;
