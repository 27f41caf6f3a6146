/** 旁路接入站点标签页（Web SDK 脚本标签）的中文文本；并入 zh-CN.ts。 */
export const bypassZhCN = {
  'bypass.title': '旁路接入：仅监控',
  'bypass.body': '旁路接入从不拦截：Web SDK 在浏览器中检测每次页面访问并记录日志（检测日志和访问日志）。',
  'bypass.tagTitle': 'Web SDK 代码',
  'bypass.tagHelp':
    '请将此标签插入 {domain} 每个页面的 <head> 中。页面从 Rampart 的网关地址加载它；只有 {domain} 及其子域名上的页面可以上报。',
  'bypass.tagLabel': '要插入的脚本标签',
  'bypass.saveFirst': '请先填写站点名称和域名并保存站点，脚本标签随后显示在这里。',
  'bypass.addressFailed': '无法读取网关地址：{error}',
  'bypass.miniProgram': '小程序不使用 Web SDK 代码，请集成小程序 SDK（在站点列表中下载）。',
  'bypass.downloadMiniProgram': '下载小程序 SDK',
  'bypass.downloadedMiniProgram': '小程序 SDK {file} 已下载：请复制到小程序中并按其 README 集成。其中含有 Access Key。',
} as const;
