// A compact Chinese-English glossary of the software-tool domain, applied to QUERIES only: a
// Chinese query ("在浏览器里截图") also searches for the English words of the terms it contains
// ("browser", "screenshot"), so it finds tools described in English. The index keeps the tools'
// own text (Chinese descriptions are matched through character bigrams, see search-text.ts).
// Written from general software vocabulary (actions, objects, UI, data, dev-ops), not from any
// evaluation query; keep it domain-general: no product names, no per-query entries.

/**
 * One entry per meaning, `;`-separated: `<Chinese forms, space separated>=<English>`. The
 * English side is a phrase typed at full weight; `|` separates alternatives, searched at
 * expansion weight (a Chinese word often covers several English ones: 提交 is commit and submit).
 * Ordered: actions, then objects (code, web and UI, data, dev-ops, office, everyday).
 */
const ENTRIES = `
创建 新建 建立 新增=create; 添加 增加 加入 追加=add; 删除 移除 删掉 去掉 清除=delete|remove
更新 更改 修改 变更=update|modify|edit; 编辑=edit; 读取 读=read; 写入 写=write; 保存 存储 储存 存入=save|store|write
获取 取得 拿到 得到=get|retrieve|fetch; 查看 看看=view|get|show; 显示 展示=show|display; 列出 列举 罗列 列表 清单=list
搜索 搜寻 检索=search; 查找 寻找 找到 找=find|search; 查询=query|search; 打开 开启=open; 关闭 关掉=close
点击 单击=click; 双击=double click; 输入 键入 打字=type|input; 填写 填入 填充=fill; 选择 选中=select; 悬停=hover
拖动 拖拽 拖放=drag; 滚动=scroll; 按下 按键=press key; 上传=upload; 下载=download
导航 跳转 访问 前往 转到=navigate|go; 后退 返回=back; 刷新 重新加载=reload|refresh; 运行 执行=run|execute
启动 开始=start; 停止 结束 终止=stop; 安装=install; 部署 发布=deploy|publish; 构建 编译=build; 测试=test; 移动=move
重命名 改名=rename; 复制 拷贝=copy; 发送=send; 回复=reply; 合并=merge; 评论 注释=comment; 审查 审核 评审=review
派生 复刻 分叉=fork; 推送=push; 拉取=pull|fetch; 克隆=clone; 导出=export; 导入=import
连接 连上=connect|connection; 断开 断开连接=disconnect; 统计 统计信息=statistics|stats; 计数 数量 条数=count
聚合=aggregate|aggregation; 分析=analyze|analysis; 监控 监视=monitor; 调试=debug; 等待=wait
模拟 仿真=emulate|simulate; 录制 录屏=record|screencast; 截图 截屏 屏幕截图=screenshot; 快照=snapshot
压缩=compress|zip; 解压=extract|unzip; 提取 抽取=extract; 爬取 抓取=crawl|scrape; 翻译=translate
总结 摘要 概括=summary|summarize; 转换=convert; 生成=generate|create; 验证 校验=validate|verify
检查=check|inspect; 比较 对比=compare|diff; 排序=sort; 过滤 筛选=filter; 计算=calculate|compute
重试 重新运行=rerun|retry; 回滚=rollback; 触发=trigger; 订阅=subscribe; 登录=login|auth
授权 认证=authorize|authentication; 解析=parse|resolve; 思考 推理=thinking|reasoning; 研究 调研=research
通知=notification|notify; 分享 共享=share; 调度 安排=schedule; 文件=file; 文件夹 目录=directory|folder
路径=path; 文本 文字=text; 内容=content|contents; 图片 图像 照片=image|picture|photo; 视频=video
音频 声音=audio|sound; 仓库 代码库=repository|repo; 分支=branch; 提交=commit|submit
问题 议题=issue|question|problem; 拉取请求 合并请求=pull request; 代码=code; 源代码 源码=source code
浏览器=browser; 网页 页面=page|webpage; 网站 站点=website|site; 网址 链接=url|link; 标签页 选项卡=tab
标签=tag|label; 窗口=window; 元素=element; 按钮=button; 表单=form; 输入框=input field
下拉框 下拉菜单=dropdown|option; 对话框 弹窗=dialog; 控制台=console; 日志=logs|log; 网络请求=network request
请求=request; 响应=response; 脚本=script; 样式=style|css; 性能=performance; 追踪 跟踪=trace|track
内存 记忆=memory; 数据库=database; 集合=collection; 文档=document|documentation|docs; 索引=index
字段=field; 记录=record; 表格 数据表=table|spreadsheet; 模式 结构=schema|structure; 用户=user
账户 账号=account; 组织=organization; 知识图谱=knowledge graph; 知识库=knowledge base; 知识=knowledge
实体=entity|entities; 关系=relation|relationship; 节点=node; 观察=observation; 图表=chart|graph
项目=project; 任务=task; 作业=job; 工作流=workflow; 流水线 管道=pipeline; 失败=failure|failed
产物 制品=artifact; 组件=component; 版本=version; 配置=configuration|config; 设置=settings
环境变量=environment variables; 环境=environment; 资源=resource; 邮件 电子邮件 邮箱=email|mail; 日历=calendar
日程=calendar event|schedule; 事件=event; 会议=meeting; 消息=message; 信息=information|info; 聊天=chat
频道=channel; 天气=weather; 地图=map; 位置 地点=location; 地址=address; 路线=route|directions; 时间=time
日期=date; 时区=timezone; 新闻=news; 互联网 网络=web|network|internet; 库=library; 软件包 安装包=package
依赖=dependency|dependencies; 数据源=data source; 数据=data; 块 区块=block; 模块=module; 开发=develop
属性=property|properties; 模板=template; 标题=title; 令牌=token; 密码=password; 密钥=key; 键盘=keyboard
鼠标=mouse; 屏幕=screen; 尺寸 大小=size; 调整大小=resize; 设备=device; 地理位置=geolocation
深色模式 暗色模式=dark mode; 无障碍 可访问性=accessibility; 审计=audit; 指标=metrics; 报告=report
结果=result|results; 状态=status; 详情 详细信息=details; 数字=number; 求和 总和=sum; 随机=random
文章 帖子=article|post; 论文=paper; 股票=stock; 价格=price; 货币=currency; 汇率=exchange rate
电子表格=spreadsheet; 演示文稿 幻灯片=presentation|slides; 终端 命令行=terminal|command; 命令=command
进程=process; 容器=container; 集群=cluster; 服务器=server; 服务=service; 接口=api|interface; 变量=variable
函数=function; 错误 报错=error; 异常=exception|error; 警告=warning
`;

export interface GlossaryEntry {
  /** typed at full weight */
  words: string;
  /** searched at expansion weight */
  alternatives: string[];
}

export const GLOSSARY: ReadonlyMap<string, GlossaryEntry> = (() => {
  const map = new Map<string, GlossaryEntry>();
  for (const entry of ENTRIES.split(/[;\n]/)) {
    if (!entry.trim()) continue;
    const [forms, english] = entry.trim().split("=") as [string, string];
    const [words, ...alternatives] = english.split("|");
    for (const form of forms.split(" ")) map.set(form, { words: words!, alternatives });
  }
  return map;
})();
const LONGEST = Math.max(...[...GLOSSARY.keys()].map((k) => k.length));

/**
 * The English of the glossary terms in a text's CJK runs, by forward maximum matching (the
 * longest entry starting at each position wins: 拉取请求 before 拉取, 数据库 before 数据).
 * Characters that start no entry are skipped (they still search as bigrams).
 */
export function translateTerms(text: string, cjkRun: RegExp): { words: string[]; alternatives: string[] } {
  const words: string[] = [];
  const alternatives: string[] = [];
  for (const [run] of text.normalize("NFKC").matchAll(cjkRun)) {
    let i = 0;
    while (i < run.length) {
      let len = Math.min(LONGEST, run.length - i);
      while (len > 0 && !GLOSSARY.has(run.slice(i, i + len))) len--;
      if (len === 0) {
        i++;
        continue;
      }
      const hit = GLOSSARY.get(run.slice(i, i + len))!;
      words.push(hit.words);
      alternatives.push(...hit.alternatives);
      i += len;
    }
  }
  return { words, alternatives };
}
