/** 全局 IP 名单页面（规则管理 > 全局 IP 名单）的简体中文文本；展开到 zh-CN.ts。 */
import type { ipListsEn } from './ip-lists.en.ts';

export const ipListsZhCN: Record<keyof typeof ipListsEn, string> = {
  'ipLists.title': '全局 IP 名单',
  'ipLists.link': '全局 IP 名单',
  'ipLists.intro':
    '所有防护站点共用的地址和 CIDR 网段：放行名单中的客户端不经检查直接放行，封禁名单中的客户端被拒绝访问。',
  'ipLists.order.title': '网关的读取顺序',
  'ipLists.order.site': '站点自己的放行名单，然后是站点自己的封禁名单（站点管理）。',
  'ipLists.order.globalPass': '全局放行名单：客户端不经检查直接放行（IGNORE）。',
  'ipLists.order.globalBlock': '全局封禁名单：客户端被拒绝访问（BLOCKLIST）。',
  'ipLists.order.note':
    '第一个包含该客户端的名单决定结果：同时在两个全局名单中的地址会被放行（放行优先），站点自己的封禁名单优先于全局放行名单。放行模式的站点和未使用插件的站点不按这些名单检查。',
  'ipLists.list.pass': '放行名单',
  'ipLists.list.block': '封禁名单',
  'ipLists.list.pass.help': '在所有站点不经检查直接放行。每行一条，最多 {max} 条。',
  'ipLists.list.block.help': '在所有站点拒绝访问。每行一条，最多 {max} 条。',
  'ipLists.placeholder': '203.0.113.7\n198.51.100.0/24\n2001:db8::/32',
  'ipLists.empty.title': '还没有全局条目',
  'ipLists.empty.body':
    '两个名单都为空，只有各站点自己的名单生效。请在下方输入地址或 CIDR 网段，或从文本文件导入，然后保存。',
  'ipLists.unsaved': '有未保存的修改',
  'ipLists.saved': '全局 IP 名单已保存：放行 {pass} 条，封禁 {block} 条。',
  'ipLists.notSaved': '未保存任何内容：请修正标出的行后再次保存。',
  'ipLists.problem.line': '第 {line} 行：{detail}',
  'ipLists.problem.notIp': '“{value}”不是 IP 地址或 CIDR 网段。',
  'ipLists.problem.prefixLength': '“{value}”的前缀长度无效（0 到 {max}）。',
  'ipLists.problem.tooMany': '每个名单最多 {max} 条。',
  'ipLists.import': '从文件导入',
  'ipLists.import.title': '导入到{list}',
  'ipLists.import.body': '{file} 中有 {count} 条；{list}现有 {current} 条。按“保存”之前不会保存任何内容。',
  'ipLists.import.how': '名单中已有的条目如何处理',
  'ipLists.import.merge': '保留，并添加文件中的新条目',
  'ipLists.import.replace': '用文件中的条目替换',
  'ipLists.import.submit': '导入',
  'ipLists.import.merged': '已从 {file} 向{list}添加 {count} 条新条目。保存后生效。',
  'ipLists.import.replaced': '{list}现为 {file} 中的 {count} 条。保存后生效。',
  'ipLists.export': '导出',
  'ipLists.remove.title': '从全局名单中删除条目？',
  'ipLists.remove.body': '保存将删除已保存的条目：{lists}所有站点将立即不再应用它们。',
  'ipLists.remove.list': '{list}：{count} 条（{examples}）。',
  'ipLists.remove.submit': '删除并保存',
};
